//! Deciding when to stop: node and time limits, clock management with
//! increment, and stopping early once the best turn cannot be overtaken.
//!
//! A node limit and a movetime are searched in full: the search does what
//! it was told (UCI's `movetime` is "search exactly"), so `go nodes 2000`
//! runs 2,000 iterations and `go movetime 1000` thinks for a second. Early
//! stopping belongs to clock-managed searches only.
//!
//! With a clock, the budget for a turn is the time left (minus a safety
//! overhead) shared over the turns still expected, plus most of the
//! increment: `soft = T / R + 0.8 * increment` and
//! `hard = min(T / 4, 3 * soft)`, with `R = max(8, 22 - 0.4 * turns played)`
//! (games last about 37 turns by both sides at the median, 67 at p90). The
//! hard limit is never exceeded. The soft limit stretches by
//! `time_unstable` when the best first action changed in the last fifth of
//! the search, and shrinks by `time_obvious` when one first action holds
//! more than three quarters of the visits; while the root's two-turn
//! checks have a danger open, only the hard limit ends the search
//! ([`Controller::hold`]). "Smart pruning" stops as soon
//! as, at every node of the root's turn along the best line, the most
//! visited child leads the runner-up by more visits than the rest of the
//! search can give it: the time left at the current rate, or the iterations
//! left when a node limit comes with the clock. A movetime given with a
//! clock caps both limits.
//!
//! # The root's checks and the clock
//! The two-turn checks at the root take time from the same turn. On a clock
//! their time (at most the `check_share` tunable of the planned time, an
//! eighth by default) is added to the search's ([`Controller::extend`]),
//! so that the tree keeps what was planned for it; a share of a quarter
//! took too much from the tree, and one of a sixteenth found too few
//! threats in time. A movetime holds everything, checks included: past it
//! the answer is chosen from what is known. On a clock or a node limit, a
//! check of the tree's best turn that runs out twice ends the checks, since
//! the search's time is the tree's; an infinite search (analysis) has
//! minutes, so there a check that runs out is resumed at the tree's next
//! look however often, and a threat that takes long to prove is still
//! found.
//!
//! # Latency
//! `stop` (and `ponderhit`, `quit`) must answer at once: the workers look
//! at the stop flag between iterations, so they end within a few; the
//! check of the answer then gets at most a few tens of milliseconds
//! (`STOPPED_CHECK_TIME` in `searcher.rs`), since the answer's own two-turn
//! check may otherwise take as long as it needs, and a check in progress on
//! the leading thread ends at its own deadline. A `ponderhit` for the
//! position pondered finds the tree already rooted there, so the search
//! goes on without compacting the tree again.

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use super::mcts::Shared;
use super::tree::{EXPANDED, WIDENING};
use super::tunables::{Tunable, Tunables};
use super::SearchLimits;
use crate::rules::Player;

/// Soft and hard time limits for one search.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct TimePlan {
    /// When to stop if the choice is settled; with no clock, the movetime.
    pub soft: Option<Duration>,
    /// When to stop in any case.
    pub hard: Option<Duration>,
    /// Whether a clock is managed, so that the search may stop before the
    /// soft limit (obvious choice, smart pruning) or stretch it.
    pub managed: bool,
    /// The movetime, if one was given: the whole search, checks included,
    /// ends by then (UCI's "search exactly x ms"), whatever time the
    /// threat checks were credited.
    pub cap: Option<Duration>,
}

impl TimePlan {
    /// The plan with every limit `share` shorter, for a tree that leaves
    /// the rest of the time to a check after it.
    pub fn shortened(self, share: f64) -> TimePlan {
        let scale = |limit: Option<Duration>| limit.map(|limit| limit.mul_f64(1.0 - share));
        TimePlan {
            soft: scale(self.soft),
            hard: scale(self.hard),
            managed: self.managed,
            cap: scale(self.cap),
        }
    }
}

/// Works out the time limits for `mover`, who has played `own_turns` turns.
pub(crate) fn plan(
    limits: &SearchLimits,
    mover: Player,
    own_turns: usize,
    tunables: &Tunables,
) -> TimePlan {
    if limits.infinite {
        return TimePlan::default();
    }
    let mut soft: Option<Duration> = None;
    let mut hard: Option<Duration> = None;
    let managed = limits.clock.is_some();
    if let Some(clock) = limits.clock {
        let left = clock.time_left[mover.index()];
        let increment = clock.increment[mover.index()];
        let overhead = Duration::from_secs_f32(tunables[Tunable::MoveOverheadMs] / 1000.0);
        let budget = left.saturating_sub(overhead).max(Duration::from_millis(1));
        let turns_left = (22.0 - 0.4 * own_turns as f64).max(8.0);
        let soft_limit = budget.div_f64(turns_left) + increment.mul_f64(0.8);
        let hard_limit = budget
            .div_f64(4.0)
            .min(soft_limit * 3)
            .max(Duration::from_millis(1));
        soft = Some(soft_limit.min(hard_limit));
        hard = Some(hard_limit);
    }
    if let Some(movetime) = limits.movetime {
        soft = Some(soft.map_or(movetime, |soft| soft.min(movetime)));
        hard = Some(hard.map_or(movetime, |hard| hard.min(movetime)));
    }
    TimePlan {
        soft,
        hard,
        managed,
        cap: limits.movetime,
    }
}

/// Watches one search and says when to stop. Lives on the main thread.
pub(crate) struct Controller {
    start: Instant,
    /// When the search really started ([`Controller::extend`] moves
    /// `start`, never this), for the movetime cap.
    origin: Instant,
    plan: TimePlan,
    node_limit: u64,
    best_action: Option<u32>,
    best_changed: Duration,
    unstable: f32,
    obvious: f32,
    smart: f32,
    /// Set by [`Controller::hold`].
    holding: bool,
    /// Whether [`Controller::hold`] ever held this search.
    held: bool,
}

impl Controller {
    /// A controller for a search that started at `start`.
    pub fn new(start: Instant, plan: TimePlan, node_limit: u64, tunables: &Tunables) -> Controller {
        Controller {
            start,
            origin: start,
            plan,
            node_limit,
            best_action: None,
            best_changed: Duration::ZERO,
            unstable: tunables[Tunable::TimeUnstable],
            obvious: tunables[Tunable::TimeObvious],
            smart: tunables[Tunable::SmartPruning],
            holding: false,
            held: false,
        }
    }

    /// While `holding`, a clock-managed search goes on to its hard limit:
    /// neither the soft limit, an obvious choice nor smart pruning ends it.
    /// Returns the hard limit the first time it holds, for the checks to
    /// plan with, and `None` otherwise (also without a clock).
    ///
    /// Why: the root's two-turn checks have a danger open (the tree's
    /// favourite lets the opponent force a win in two and no defence is
    /// known yet, or a check ran out while a plan of the opponent's
    /// resisted every reply it tried). Proving such a plan and finding a
    /// defence take tens to hundreds of milliseconds where a quiet turn's
    /// checks take a few, and a turn lost this way loses the game: a clock
    /// is better spent here than on the quiet turns after (Stockfish
    /// likewise thinks longer while its best move fails low). Once the
    /// danger is settled the usual limits apply again. A movetime is
    /// searched exactly and is never held.
    pub fn hold(&mut self, holding: bool) -> Option<Duration> {
        if !self.plan.managed {
            return None;
        }
        self.holding = holding;
        if !holding || self.held {
            return None;
        }
        self.held = true;
        self.plan.hard
    }

    /// Moves the search's start later by `pause`: time the search spent on
    /// something else (the root's threat checks) that its limits should
    /// not count. A movetime still ends the search on time.
    pub fn extend(&mut self, pause: Duration) {
        self.start += pause;
    }

    /// Whether the search should stop now.
    pub fn should_stop(&mut self, shared: &Shared) -> bool {
        if self
            .plan
            .cap
            .is_some_and(|cap| self.origin.elapsed() >= cap)
        {
            return true;
        }
        let elapsed = self.start.elapsed();
        if let Some(hard) = self.plan.hard {
            if elapsed >= hard {
                return true;
            }
        }
        if !self.plan.managed || self.holding {
            // A movetime or a node limit (checked by the workers) is
            // searched in full, and a held search to its hard limit.
            return false;
        }
        let tree = shared.tree;
        let root = tree.node(shared.root);
        let root_visits = root.visits.load(Ordering::Relaxed) as f64;
        let (best, best_visits, _) = best_two(shared, shared.root);
        if best != self.best_action {
            self.best_action = best;
            self.best_changed = elapsed;
        }
        let mut soft_limit = None;
        if let Some(soft) = self.plan.soft {
            let mut factor = 1.0;
            if elapsed.as_secs_f64() > 0.0
                && self.best_changed.as_secs_f64() > 0.8 * elapsed.as_secs_f64()
            {
                factor *= self.unstable as f64;
            }
            if root_visits > 0.0 && best_visits as f64 > 0.75 * root_visits {
                factor *= self.obvious as f64;
            }
            let limit = soft
                .mul_f64(factor)
                .min(self.plan.hard.unwrap_or(Duration::MAX));
            if elapsed >= limit {
                return true;
            }
            soft_limit = Some(limit);
        }
        if self.smart <= 0.0 {
            return false;
        }
        let done = shared.iterations.load(Ordering::Relaxed);
        let mut remaining = f64::INFINITY;
        if self.node_limit != u64::MAX {
            remaining = self.node_limit.saturating_sub(done) as f64;
        }
        if self.plan.hard.is_some() {
            let seconds = elapsed.as_secs_f64();
            let limit = soft_limit.or(self.plan.hard).unwrap_or_default();
            if seconds < 0.05 * limit.as_secs_f64() || seconds <= 0.0 {
                return false;
            }
            let rate = done as f64 / seconds;
            let left = limit.saturating_sub(elapsed).as_secs_f64();
            remaining = remaining.min(rate * left / self.smart as f64);
        }
        if !remaining.is_finite() || root_visits <= 0.0 {
            return false;
        }
        decided(shared, remaining, root_visits)
    }
}

/// The most and second most visited children of a node: (best edge's
/// action, its visits, second's visits).
fn best_two(shared: &Shared, node_id: u32) -> (Option<u32>, u32, u32) {
    let tree = shared.tree;
    let node = tree.node(node_id);
    let state = node.state.load(Ordering::Acquire);
    if state != EXPANDED && state != WIDENING {
        return (None, 0, 0);
    }
    let (first, count, _) = node.children();
    let mut best = (None, 0u32);
    let mut second = 0u32;
    for index in first..first + count {
        let edge = tree.edge(index);
        let visits = edge.visits.load(Ordering::Relaxed);
        if visits > best.1 {
            second = best.1;
            best = (Some(index), visits);
        } else if visits > second {
            second = visits;
        }
    }
    (
        best.0
            .map(|index| tree.edge(index).action.load(Ordering::Relaxed)),
        best.1,
        second,
    )
}

/// Whether every node of the root's turn along the most visited line has a
/// leader that the remaining visits (scaled by the node's share) cannot catch.
fn decided(shared: &Shared, remaining: f64, root_visits: f64) -> bool {
    let tree = shared.tree;
    let root_mover = tree.node(shared.root).mover();
    let mut node_id = shared.root;
    for _ in 0..16 {
        let node = tree.node(node_id);
        let state = node.state.load(Ordering::Acquire);
        if state != EXPANDED && state != WIDENING {
            return true;
        }
        let (first, count, total) = node.children();
        let share = node.visits.load(Ordering::Relaxed) as f64 / root_visits;
        let mut best = (0u32, 0u32);
        let mut second = 0u32;
        for index in first..first + count {
            let visits = tree.edge(index).visits.load(Ordering::Relaxed);
            if visits > best.1 {
                second = best.1;
                best = (index, visits);
            } else if visits > second {
                second = visits;
            }
        }
        if count == 0 {
            return true;
        }
        if total > 1 && (best.1 - second) as f64 <= remaining * share {
            return false;
        }
        let child = tree.edge(best.0).child.load(Ordering::Acquire);
        if child == 0 || tree.node(child).mover() != root_mover {
            return true;
        }
        node_id = child;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::Clock;

    #[test]
    fn clock_plan_respects_hard_limit() {
        let tunables = Tunables::default();
        let limits = SearchLimits {
            clock: Some(Clock {
                time_left: [Duration::from_secs(60), Duration::from_secs(60)],
                increment: [Duration::from_secs(1), Duration::from_secs(1)],
            }),
            ..SearchLimits::default()
        };
        let plan = plan(&limits, Player::First, 0, &tunables);
        let soft = plan.soft.unwrap();
        let hard = plan.hard.unwrap();
        assert!(soft <= hard);
        assert!(hard <= Duration::from_secs(15));
        // 59.95 s / 22 + 0.8 s is about 3.5 s.
        assert!(soft > Duration::from_secs(3) && soft < Duration::from_secs(4));
    }

    #[test]
    fn a_clock_is_held_to_its_hard_limit_and_a_movetime_never() {
        let tunables = Tunables::default();
        let clocked = SearchLimits {
            clock: Some(Clock {
                time_left: [Duration::from_secs(60), Duration::from_secs(60)],
                increment: [Duration::ZERO, Duration::ZERO],
            }),
            ..SearchLimits::default()
        };
        let clocked = plan(&clocked, Player::First, 0, &tunables);
        assert!(clocked.soft < clocked.hard);
        let mut controller = Controller::new(Instant::now(), clocked, u64::MAX, &tunables);
        assert_eq!(controller.hold(false), None);
        assert!(!controller.holding);
        assert_eq!(controller.hold(true), clocked.hard);
        assert!(controller.holding);
        assert_eq!(controller.hold(true), None, "the hard limit is told once");
        assert_eq!(controller.hold(false), None);
        assert!(!controller.holding, "a settled danger lets go");
        assert_eq!(controller.plan, clocked);
        let exact = SearchLimits {
            movetime: Some(Duration::from_millis(100)),
            ..SearchLimits::default()
        };
        let exact = plan(&exact, Player::First, 0, &tunables);
        let mut controller = Controller::new(Instant::now(), exact, u64::MAX, &tunables);
        assert_eq!(controller.hold(true), None);
        assert!(!controller.holding);
    }

    #[test]
    fn movetime_caps_both_limits() {
        let tunables = Tunables::default();
        let limits = SearchLimits {
            movetime: Some(Duration::from_millis(100)),
            ..SearchLimits::default()
        };
        let plan = plan(&limits, Player::Second, 10, &tunables);
        assert_eq!(plan.soft, Some(Duration::from_millis(100)));
        assert_eq!(plan.hard, Some(Duration::from_millis(100)));
        assert!(!plan.managed, "a movetime is searched in full");
        assert_eq!(
            plan.cap,
            Some(Duration::from_millis(100)),
            "and ends on time"
        );
        let clock = SearchLimits {
            clock: Some(Clock::default()),
            ..limits
        };
        assert!(plan_managed(&clock));
        assert!(!plan_managed(&SearchLimits::nodes(100)));
    }

    fn plan_managed(limits: &SearchLimits) -> bool {
        plan(limits, Player::First, 0, &Tunables::default()).managed
    }
}
