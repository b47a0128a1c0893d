//! The shot guard: before the root plays the tree's turn, every reply to it
//! is listed, and a turn that leaves material to one reply is weighed
//! against the other candidates.
//!
//! In a short search the tree rarely reaches the reply that punishes a
//! turn: two large ships moved into the enemy home where a red sacrifice at
//! another system captures both, a system left one piece short of a
//! catastrophe that a yellow sacrifice completes from three systems away.
//! Those replies are one of tens of thousands, with small priors, and their
//! point comes actions later. A one-ply program that lists every reply
//! never leaves such a shot, so neither may the engine: the rules core
//! lists the replies to the tree's turn (tens of thousands a millisecond)
//! and [`super::material::swing`] says what each takes.
//!
//! When the worst takes at least `shot_guard` (small 1, medium 2.5, large
//! 5.5), and the static value after it is below the tree's own value for
//! the turn by more than `shot_guard_margin` (a smaller gap means the tree
//! already weighed the shot), the guard lists the replies to the tree's
//! next candidates too (at most `shot_guard_candidates`, each with at
//! least `shot_guard_visits` of the turn's visits, each first checked safe
//! against a win at once) and plays the one whose value is best, where a
//! candidate that leaves a shot is worth no more than the static value
//! after its worst reply (the same leaf value the tree uses, a win there
//! counted as such). A candidate's listing that the deadline cuts short
//! keeps the tree's value, as does the first turn, which then stays.
//!
//! The two gates exist because a guard without them lost matches: it moved
//! to candidates of a few visits, whose tree value says little, and where
//! the tree had already valued the shot it still moved to any candidate of
//! higher value. With them the guard at `shot_guard` 4.5 (a large ship, or
//! two medium) and `shot_guard_visits` 0.1 avoids far more of the suite's
//! shots than the tree alone and plays level with the engine without it
//! (benches/README.md, "One-turn shots" and "Playing strength"), so it
//! stays off by default until a match shows it gains.
//!
//! On the clock the tree stops `shot_guard_share` of the time early to
//! leave the guard its time; under a node limit the guard's listings are
//! not counted, so the result stays reproducible. At 20 ms a turn the share
//! is what the tree misses most: 0.15 of it cost more than the guard won.

use std::time::Instant;

use super::extract::TreeTurn;
use super::info::TreeReading;
use super::material::{played, worst_reply_within};
use super::players::Choice;
use super::quiescence;
use super::report::Decision;
use super::root::{is_safe, RootCheck};
use super::solver::Solver;
use super::tunables::{Tunable, Tunables};
use crate::rules::{Position, Rules};

/// Everything the guard needs besides the turns it weighs.
pub(super) struct Guard<'a> {
    /// The root.
    pub position: &'a Position,
    /// The game's rules.
    pub rules: &'a Rules,
    /// The search's tunables.
    pub tunables: &'a Tunables,
    /// The root's checks, for the safety of a candidate.
    pub check: &'a RootCheck,
    /// When the guard's listings must end.
    pub deadline: Option<Instant>,
}

impl Guard<'_> {
    /// The turn to play instead of `first` (the tree's first safe turn),
    /// or `None` to play it: see the module documentation.
    pub fn weigh(
        &self,
        first: &TreeTurn,
        reading: &TreeReading,
        solver: &mut Solver,
    ) -> Option<Choice> {
        let least = self.tunables[Tunable::ShotGuard];
        if least <= 0.0 {
            return None;
        }
        let first_value = self.value_after_shot(first, least, solver)??;
        if first_value >= first.value - self.tunables[Tunable::ShotGuardMargin] {
            return None;
        }
        let least_visits = first.visits as f32 * self.tunables[Tunable::ShotGuardVisits];
        let most = self.tunables[Tunable::ShotGuardCandidates] as usize;
        let mut best: (f32, Option<&TreeTurn>) = (first_value.min(first.value), None);
        let mut weighed = vec![&first.actions];
        for turn in reading.turns() {
            if weighed.len() >= most || self.deadline.is_some_and(|end| Instant::now() >= end) {
                break;
            }
            if weighed.contains(&&turn.actions) {
                continue;
            }
            weighed.push(&turn.actions);
            if turn.value <= best.0
                || (turn.visits as f32) < least_visits
                || !is_safe(&turn.actions, self.position, self.rules, self.check, solver)
            {
                continue;
            }
            let value = match self.value_after_shot(turn, least, solver) {
                Some(Some(after)) => after.min(turn.value),
                Some(None) => turn.value,
                None => continue,
            };
            if value > best.0 {
                best = (value, Some(turn));
            }
        }
        best.1.map(|turn| Choice {
            actions: turn.actions.clone(),
            value: best.0,
            decision: Decision::Search,
        })
    }

    /// For `turn`: `Some(Some(value))`, the root mover's static value
    /// after the reply that takes the most, when that is at least `least`;
    /// `Some(None)` when no reply takes that much; `None` when the listing
    /// ran out of time (or the turn does not replay).
    fn value_after_shot(
        &self,
        turn: &TreeTurn,
        least: f32,
        solver: &mut Solver,
    ) -> Option<Option<f32>> {
        let after = played(self.position, self.rules, &turn.actions)?;
        let worst = worst_reply_within(&after, self.rules, self.deadline, usize::MAX)?;
        if worst.swing < least {
            return Some(None);
        }
        let (position, rules, tunables) = (&worst.result, self.rules, self.tunables);
        let value = super::static_evaluation_using(position, rules, tunables, solver);
        Some(Some(quiescence::with_sacrifice_shot(
            position, rules, tunables, value,
        )))
    }
}
