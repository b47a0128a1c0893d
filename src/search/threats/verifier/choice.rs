//! The final choice: the check of the turn the search chose, and what
//! replaces it when it does not defend.
//!
//! After the tree and the win-in-1 checks have chosen, the root checks the
//! choice for two-turn threats ([`RootVerifier::defend`]); during the
//! search, a choice made under a proven threat goes through
//! [`RootVerifier::safer_choice`]. Either way a replacement is one of:
//! - a *proven defence*: a turn a check proved safe. Under a proven threat
//!   a proven defence beats an unchecked choice, since the checks just
//!   showed that plausible turns lose by force; a choice the checks could
//!   not decide gives way to one only if the tree visited it more
//!   ([`RootVerifier::proven_instead`]), since the tree's preference is the
//!   better judge between two turns that may both be safe: replacing it by
//!   any proven defence of about its value would replace the tree's choice
//!   far more often than real threats warrant, and lose games;
//! - an *unrefuted turn* ([`RootVerifier::escape`], decision
//!   `unrefuted-turn`), when the choice was proven lost (or left unchecked
//!   as still threatened, with no time left to check it) and no defence
//!   was proven in time: the first turn no check refuted, that the
//!   opponent cannot win against at once, and after which no remembered
//!   plan still threatens. Any turn not proven lost is better than one
//!   that is.
//!
//! Every replacement is a proven defence or a turn the opponent cannot win
//! against at once, so the guarantees of the win-in-1 checks still hold
//! whatever these checks decide. On the clock the checks after the search
//! may find no time left (a `movetime` holds everything): the check of the
//! choice then gets a short look of its own ([`ESCAPE_TIME`]), resuming
//! where the in-search checks stopped.

use std::time::{Duration, Instant};

use rayon::ThreadPool;

use super::defence_search::Progress;
use super::RootVerifier;
use crate::rules::{Action, Outcome, Position, Rules};
use crate::search::info::TreeReading;
use crate::search::players::Choice;
use crate::search::report::Decision;
use crate::search::threats::budget::ThreatBudget;
use crate::search::threats::result_of;
use crate::search::tunables::Tunables;

/// How long [`RootVerifier::escape`] may look for a turn on the clock.
const ESCAPE_TIME: Duration = Duration::from_millis(2);

impl RootVerifier {
    /// The turn to play when the search found the position under threat
    /// and `choice` was not proven to defend: `choice` itself if a check
    /// within `budget` proves it does, else the tree's best turn among
    /// those proven to defend, else the last found. A proven defence beats
    /// an unchecked turn there, since the checks just showed that plausible
    /// turns lose by force. With no defence proven, see
    /// [`RootVerifier::escape`]. `None` when there is nothing to change.
    pub(in crate::search) fn safer_choice(
        &mut self,
        choice: &Choice,
        reading: &TreeReading,
        position: &Position,
        rules: &Rules,
        budget: ThreatBudget,
    ) -> Option<Choice> {
        if !self.threatened || self.proven_safe(&choice.actions) {
            return None;
        }
        if self.safe.is_empty() {
            return self.escape(choice, reading, position, rules, budget);
        }
        // The tree's choice may have come after the last check: if it
        // defends, it stands (a found defence is only the listing's first).
        // One left unchecked as still threatened is not checked now: a
        // proven defence is at hand.
        if !self.ruled_out(&choice.actions) {
            self.checker.reset_work();
            if self
                .checker
                .is_defence(position, &choice.actions, rules, budget)
                == Some(true)
            {
                return Some(Choice {
                    actions: choice.actions.clone(),
                    value: choice.value,
                    decision: choice.decision,
                });
            }
        }
        let (actions, value) = reading
            .turns()
            .find(|turn| self.proven_safe(&turn.actions))
            .map(|turn| (turn.actions.clone(), turn.value))
            .or_else(|| {
                let last = self.safe.last()?;
                Some((last.clone(), choice.value))
            })?;
        Some(Choice {
            actions,
            value,
            decision: Decision::TwoTurnDefence,
        })
    }

    /// The root's two-turn check, after the tree and the win-in-1 checks have
    /// chosen: if the chosen turn lets the opponent force a win in two, the
    /// tree's other candidates are tried (a turn proven safe during the
    /// search first comes as it is), then every turn, best first by the
    /// static evaluation, resuming the defence search where the in-search
    /// checks left it; the first defence found replaces the choice. When the
    /// budget runs out, or no defence exists, a choice proven lost gives way
    /// to a turn no check refuted ([`RootVerifier::escape`]), and a choice
    /// left undecided to a proven defence the tree visited more
    /// ([`RootVerifier::proven_instead`]); otherwise the choice stands. On
    /// the clock, a check of the choice that the search left no time gets a
    /// short look of its own ([`ESCAPE_TIME`]). Every replacement is a
    /// proven defence or a turn the opponent cannot win against at once, so
    /// the win-in-1 guarantees of the search still hold.
    ///
    /// Why resume: under a node limit the in-search checks can spend their
    /// whole work on the list and stop a few turns short of a defence (in
    /// match game 377 of the two-turn suite, with the learned evaluation's
    /// order, the first defence lies 12 million work units down the list; a
    /// search of 3,000 nodes has 9 million in and 9 million after), and a
    /// listing started afresh after the search repeated the same turns.
    ///
    /// With `pool` (a search of several threads, whose helpers are done by
    /// now) the list is ordered and decided on all of its threads.
    // The pool is lent only for this call: it belongs to the searcher.
    #[allow(clippy::too_many_arguments)]
    pub(in crate::search) fn defend(
        &mut self,
        choice: Choice,
        reading: &TreeReading,
        position: &Position,
        rules: &Rules,
        tunables: &Tunables,
        budget: ThreatBudget,
        pool: Option<&ThreadPool>,
    ) -> Choice {
        if !matches!(
            choice.decision,
            Decision::Search | Decision::SafetyFallback | Decision::Greedy
        ) {
            return choice;
        }
        self.checker.reset_work();
        let verdict = if self.refuted.contains(&choice.actions) {
            Some(false)
        } else {
            let verdict = self
                .checker
                .is_defence(position, &choice.actions, rules, budget);
            match (verdict, budget.deadline) {
                // On the clock the search may have left the check nothing:
                // a short look of its own, resuming it, as `escape` has.
                (None, Some(_)) => {
                    let look = ThreatBudget {
                        work: budget.work,
                        deadline: Some(Instant::now() + ESCAPE_TIME),
                    };
                    self.checker
                        .is_defence(position, &choice.actions, rules, look)
                }
                (verdict, _) => verdict,
            }
        };
        match verdict {
            Some(true) => return choice,
            None => return self.proven_instead(choice, reading, position, rules),
            Some(false) => {
                self.refuted.push(choice.actions.clone());
                self.threatened = true;
            }
        }
        let defence = |actions: &[Action], value: f32| Choice {
            actions: actions.to_vec(),
            value,
            decision: Decision::TwoTurnDefence,
        };
        for turn in reading.turns() {
            if turn.actions == choice.actions || self.refuted.contains(&turn.actions) {
                continue;
            }
            if self.proven_safe(&turn.actions) {
                return defence(&turn.actions, turn.value);
            }
            let remaining = ThreatBudget {
                work: budget.work.saturating_sub(self.checker.work_spent()),
                deadline: budget.deadline,
            };
            match self
                .checker
                .is_defence(position, &turn.actions, rules, remaining)
            {
                Some(true) => return defence(&turn.actions, turn.value),
                Some(false) => {}
                None => {
                    return self
                        .escape(&choice, reading, position, rules, budget)
                        .unwrap_or(choice)
                }
            }
        }
        if let Some(safe) = self.safe.first() {
            // Proven during the search, but no longer among the tree's turns.
            return match defence_value(position, safe, rules, tunables) {
                Some(value) => defence(safe, value),
                None => choice,
            };
        }
        if !self.listed {
            self.list_candidates(position, rules, tunables, budget.deadline, pool);
        } else if self.candidates.is_empty() {
            // In check with the classification out of time: no list to
            // resume, and listing now would take longer still.
            return choice;
        }
        // The helpers are done: the pool has every thread.
        let deadlines = (budget.deadline, budget.deadline);
        let progress = self.advance(rules, tunables, budget.work, deadlines, pool);
        if !matches!(progress, Progress::Found) {
            return self
                .escape(&choice, reading, position, rules, budget)
                .unwrap_or(choice);
        }
        let found = self.safe[0].clone();
        match defence_value(position, &found, rules, tunables) {
            Some(value) => defence(&found, value),
            None => choice,
        }
    }

    /// The turn to play when the check after the search could not decide
    /// `choice`: a turn proven to defend during the search that the tree
    /// visited more than the choice, else `choice`. Turns are compared by
    /// their results, with the visits of the result's node: the tree
    /// reaches one result by several orders of the same actions, and a
    /// check proves whichever order it was given.
    ///
    /// Why: the in-search checks stop at
    /// [`VERIFY_UNTIL`](super::VERIFY_UNTIL) of the time and
    /// a `movetime` leaves the check after the search nothing, so a turn
    /// the tree's best line reaches in the last moments is played
    /// unchecked. In suite position 35 that line (read one action at a
    /// time, following the most visited action) ends in a turn of 237
    /// visits that loses by force, while the turn proven to defend in 1 ms
    /// at a fifth of the search had 7,858.
    fn proven_instead(
        &self,
        choice: Choice,
        reading: &TreeReading,
        position: &Position,
        rules: &Rules,
    ) -> Choice {
        if self.safe.is_empty() {
            return choice;
        }
        let proven: Vec<u64> = self
            .safe
            .iter()
            .filter_map(|turn| result_of(position, turn, rules))
            .map(|result| result.hash())
            .collect();
        let Some(chosen) = result_of(position, &choice.actions, rules) else {
            return choice;
        };
        let visits = reading
            .candidates
            .iter()
            .find(|turn| turn.result.hash() == chosen.hash())
            .map_or(0, |turn| turn.visits);
        reading
            .candidates
            .iter()
            .find(|turn| proven.contains(&turn.result.hash()) && turn.visits > visits)
            .map_or(choice, |turn| Choice {
                actions: turn.actions.clone(),
                value: turn.value,
                decision: Decision::Search,
            })
    }

    /// The turn to play under a threat with no defence proven in time, when
    /// the tree's `choice` was proven lost in two, or was never checked and
    /// no time is left to check it while a known plan of the opponent still
    /// threatens after it: the first turn that no check refuted, that the
    /// opponent cannot win against at once and after which no known plan
    /// threatens, taken from the tree's turns, then from the defence
    /// search's untried turns (best first by the static evaluation), then
    /// from those it put aside; for a refuted choice, failing that, the
    /// first not refuted and not lost at once. Any turn not proven lost is
    /// better than one that is. `None` to keep `choice`.
    ///
    /// Why: the tree, whose leaf evaluation does not see the plan, can
    /// still prefer a turn the checks refuted, and in a position with tens
    /// of thousands of opponent turns no defence may be proven in 100 ms.
    /// At 100 ms a turn the tree often proposes one refuted turn after
    /// another, the checks refute each in a fraction of a millisecond once
    /// the plan is known, and the last one comes when the time is spent:
    /// a known plan that still threatens after it says that it most likely
    /// loses the same way.
    pub(super) fn escape(
        &mut self,
        choice: &Choice,
        reading: &TreeReading,
        position: &Position,
        rules: &Rules,
        budget: ThreatBudget,
    ) -> Option<Choice> {
        // A short look of its own on the clock: the search's time may be
        // spent, and each turn costs a solver call or a few.
        let look = ThreatBudget {
            work: budget.work,
            deadline: budget.deadline.map(|_| Instant::now() + ESCAPE_TIME),
        };
        // A choice left unchecked as still threatened counts as refuted.
        let refuted_choice = self.ruled_out(&choice.actions);
        if !refuted_choice {
            // With time left, the check after the search decides the choice.
            let time_left = budget
                .deadline
                .is_none_or(|deadline| deadline > Instant::now() + ESCAPE_TIME);
            if time_left {
                return None;
            }
            let result = result_of(position, &choice.actions, rules)?;
            if self.checker.still_threatened(&result, rules, look) != Some(true) {
                return None;
            }
        }
        let RootVerifier {
            checker,
            refuted,
            unchecked_best,
            candidates,
            next_candidate,
            deferred,
            next_deferred,
            ..
        } = self;
        checker.reset_work();
        let tree = || reading.turns().map(|turn| turn.actions.as_slice());
        let untried = || {
            candidates
                .iter_from(*next_candidate)
                .map(|(actions, _)| actions)
        };
        let put_aside = || {
            deferred[(*next_deferred).min(deferred.len())..]
                .iter()
                .map(|&index| candidates.actions(index))
        };
        let passes: &[bool] = if refuted_choice {
            &[true, false]
        } else {
            &[true]
        };
        for &unthreatened in passes {
            for actions in tree().chain(untried()).chain(put_aside()) {
                if refuted
                    .iter()
                    .chain(unchecked_best.iter())
                    .any(|turn| turn == actions)
                {
                    continue;
                }
                let Some(result) = result_of(position, actions, rules) else {
                    continue;
                };
                match checker.within(look, |checker| checker.wins_at_once(&result, rules)) {
                    Some(false) => {}
                    Some(true) => continue,
                    None => return None,
                }
                if unthreatened {
                    match checker.still_threatened(&result, rules, look) {
                        Some(false) => {}
                        Some(true) => continue,
                        None => return None,
                    }
                }
                let value = reading
                    .turns()
                    .find(|turn| turn.actions == actions)
                    .map_or(choice.value, |turn| turn.value);
                return Some(Choice {
                    actions: actions.to_vec(),
                    value,
                    decision: Decision::UnrefutedTurn,
                });
            }
        }
        None
    }
}

/// The value of a defence found outside the tree, for its mover: 1 if it
/// wins at once, else the leaf evaluation of its result. `None` if the turn
/// is not playable or ends the game otherwise.
fn defence_value(
    position: &Position,
    actions: &[Action],
    rules: &Rules,
    tunables: &Tunables,
) -> Option<f32> {
    let mut after = *position;
    for &action in actions {
        after.try_apply(rules, action).ok()?;
    }
    match after.end_turn(rules) {
        Ok(Outcome::Ongoing) => Some(-crate::search::evaluate(&after, tunables, false)),
        Ok(Outcome::Win(winner)) if winner == position.side_to_move() => Some(1.0),
        _ => None,
    }
}
