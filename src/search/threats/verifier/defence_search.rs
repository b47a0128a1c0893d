//! The defence search: under a proven threat, all the root's turns tried
//! as defences, best first, until one is proven safe.
//!
//! Under a two-turn threat the tree tends to propose one refuted turn
//! after another (its values come from the leaf evaluation, which does not
//! see the plan), each checked only after the tree has moved on, and it
//! can run out of time before it proposes a defence, though most threatened
//! positions have dozens. With the opponent's winning plans remembered,
//! refuting a turn mostly takes a fraction of a millisecond, so going
//! through the list in order reaches a defence within milliseconds in most
//! of them. The search starts once a check has refuted the tree's best
//! turn and no defence is known, and stops at the first defence proven.
//!
//! # Its time
//! On the clock it runs in slices between stretches of tree growth:
//! [`DEFENCE_SLICE`] of the planned time at each visit, doubled when one
//! turn needs longer than a slice, and [`DEFENCE_SHARE`] of the planned
//! time in all, whatever `check_share` is. Under a node limit it shares the
//! checks' work. It goes on after the search too: the check of the choice
//! resumes it where the in-search slices left it, with the work or the
//! time that check has ([`RootVerifier::defend`]), since a list started
//! afresh would decide the same turns again.
//!
//! # Its order
//! The candidates are the root's turns whose game goes on (turns that win
//! at once are proven safe at once), listed once and keyed by the static
//! evaluation (the sibling module `candidates`): the turns without a
//! sacrifice keyed first, those with one when the first pass reaches them
//! ([`RootVerifier::advance`]), within the check's whole time rather than
//! the slice's, so that a big list is ordered when its turn comes.
//!
//! Then two passes:
//! - the first decides the candidates in key order, but puts aside those
//!   after which a remembered plan still threatens (a pass lost, no win at
//!   once for the mover, no remembered refuting reply that answers it):
//!   most of them are lost to that plan, and proving so lists every reply.
//!   The remembered replies matter: a plan one of them answers puts
//!   nothing aside, and otherwise a late-learned plan can put aside the
//!   one real defence behind hundreds of turns;
//! - the second decides the turns put aside, in key order whichever part
//!   of the list they came from.
//!
//! A candidate whose full check a slice left unfinished goes on with it at
//! the next slice, even when a plan learned since would now put it aside:
//! its work so far would be lost, and the plans that put turns aside
//! wrongly are the ones learned late.
//!
//! The defences found this way mostly break the plan itself (most often
//! the catastrophe it prepares at home) rather than threaten a win back,
//! so turns that threaten back are not tried first: the evaluation's order
//! stands.
//!
//! A defence found is played only if the tree's own choice is not proven
//! safe ([`RootVerifier::safer_choice`]). With more than one thread the
//! search runs on all of them ([`RootVerifier::advance_on_pool`], the
//! sibling module `crew`).

use std::time::Instant;

use rayon::ThreadPool;

use super::RootVerifier;
use crate::rules::{Position, Rules};
use crate::search::mcts::Shared;
use crate::search::threats::budget::ThreatBudget;
use crate::search::threats::candidates::evaluation_keys;
use crate::search::threats::crew::{decide, decide_on_pool, Crew, CrewMember, Items, Verdict};
use crate::search::tunables::Tunables;

/// How far one advance of the defence search got
/// ([`RootVerifier::advance_list`]).
pub(super) enum Progress {
    /// A defence was proven (the first of the verifier's safe turns).
    Found,
    /// Every candidate was decided and none defends.
    Exhausted,
    /// The budget ran out; `needs_longer` when not even one turn was
    /// decided, so that the next advance should get more time.
    Stopped { needs_longer: bool },
    /// The first pass reached the candidates not keyed yet
    /// ([`RootVerifier::advance`] keys them and goes on).
    Unkeyed,
}

/// The defence search's time at each visit, as a share of the planned
/// time, at first ([`RootVerifier::seek_defence`]).
const DEFENCE_SLICE: f64 = 0.05;

/// The defence search's time in all, as a share of the planned time: it
/// runs only under a threat, where finding a defence matters more than the
/// tree's finer choice, so it does not shrink with `check_share` (a budget
/// tied to an eighth of the time loses a good part of the threatened
/// positions that have a defence). Seven tenths leaves the tree three
/// tenths, and a defence the list finds at all it mostly finds within
/// that; it can be that much because the tree's best turns that a
/// remembered plan still threatens are left unchecked meanwhile
/// ([`RootVerifier::check_best`]), so that those checks take little of the
/// time.
pub(super) const DEFENCE_SHARE: f64 = 0.7;

impl RootVerifier {
    /// Looks for a defence among all the root's turns, best first by the
    /// static evaluation, once the tree's best turn was refuted and none is
    /// known to be safe; on the clock a slice of time at each visit, so
    /// that the tree grows in between, and resumed where it stopped.
    ///
    /// Why, and in what order: see the module docs. A found defence is
    /// played only if the tree's choice is not proven safe
    /// ([`RootVerifier::safer_choice`]).
    pub(super) fn seek_defence(
        &mut self,
        shared: &Shared,
        deadline: Option<Instant>,
        crew: Option<&dyn Crew>,
    ) {
        let started = Instant::now();
        let rules = &shared.rules;
        self.checker.reset_work();
        let seek = |verifier: &mut Self, pool: Option<&ThreadPool>| {
            if !verifier.listed {
                let position = &shared.root_position;
                verifier.list_candidates(position, rules, shared.tunables, deadline, pool);
            }
            let slice = verifier.slice_end(deadline);
            let work = verifier.work;
            let progress = verifier.advance(rules, shared.tunables, work, (deadline, slice), pool);
            if let Progress::Stopped { needs_longer: true } = progress {
                // This turn needs a longer slice: the next visit has it.
                verifier.slice = verifier.slice.map(|slice| slice * 2);
            }
        };
        match crew {
            Some(crew) => crew.run(&mut |pool| seek(self, Some(pool))),
            None => seek(self, None),
        }
        self.spent += started.elapsed();
        self.seek_spent += started.elapsed();
        self.work = self.work.saturating_sub(self.checker.work_spent());
        let seek_over = self
            .soft
            .is_some_and(|soft| self.seek_spent >= soft.mul_f64(DEFENCE_SHARE) + self.extra);
        if seek_over || self.work == 0 {
            self.seek_over = true;
        }
    }

    /// When the defence search's slice at this visit ends: on the clock a
    /// slice of the planned time, within what [`DEFENCE_SHARE`] leaves and
    /// `deadline`; by work alone, `deadline`.
    fn slice_end(&mut self, deadline: Option<Instant>) -> Option<Instant> {
        match (self.soft, deadline) {
            (Some(soft), Some(deadline)) => {
                // The tree keeps three tenths of the time or more: a
                // defence the list finds at all, it mostly finds within
                // that.
                let left =
                    (soft.mul_f64(DEFENCE_SHARE) + self.extra).saturating_sub(self.seek_spent);
                let slice = *self.slice.get_or_insert(soft.mul_f64(DEFENCE_SLICE));
                Some(deadline.min(Instant::now() + slice.min(left)))
            }
            _ => deadline,
        }
    }

    /// [`RootVerifier::advance_list`] on every thread of `pool`: each takes
    /// the next undecided candidate, with a checker of its own that starts
    /// from this one's remembered plans and refutations, until one finds a
    /// defence, the list ends, or `work` (shared out evenly) or the
    /// deadline runs out. The candidates are decided independently, so the
    /// list goes through about as many times faster as there are threads;
    /// the defence found is then the first to be proven, not necessarily
    /// the first in the list (any proven defence will do: the tree's
    /// preference among them decides, [`RootVerifier::safer_choice`]).
    fn advance_on_pool(
        &mut self,
        pool: &ThreadPool,
        rules: &Rules,
        work: u64,
        deadline: Option<Instant>,
    ) -> Progress {
        let workers = pool.current_num_threads().max(1);
        if self.crew.len() != workers {
            self.crew = (0..workers)
                .map(|_| CrewMember {
                    checker: self.checker.seeded(),
                    pending: None,
                })
                .collect();
        }
        let mut decided = false;
        while self.safe.is_empty() {
            let end = match self.first_pass_end() {
                Ok(end) => end,
                Err(unkeyed) => return unkeyed,
            };
            let first_pass = self.next_candidate < end;
            let items = if first_pass {
                Items::Range(self.next_candidate, end)
            } else {
                Items::List(&self.deferred[self.next_deferred..])
            };
            if items.is_empty() && self.crew.iter().all(|member| member.pending.is_none()) {
                return Progress::Exhausted;
            }
            let left = work.saturating_sub(self.checker.work_spent());
            if left == 0 || deadline.is_some_and(|deadline| Instant::now() >= deadline) {
                return Progress::Stopped {
                    needs_longer: !decided,
                };
            }
            let each = ThreatBudget {
                work: (left / workers as u64).max(1),
                deadline,
            };
            for member in &mut self.crew {
                member.checker.learn(
                    self.checker.threats.first().cloned(),
                    self.checker.killers.first().cloned(),
                );
            }
            let round = decide_on_pool(
                pool,
                &mut self.crew,
                &self.candidates,
                items,
                first_pass,
                rules,
                each,
            );
            for &(_, index, verdict) in &round.verdicts {
                match verdict {
                    Verdict::Deferred => self.deferred.push(index),
                    Verdict::Refuted => self.refuted.push(self.candidates.actions(index).to_vec()),
                    Verdict::Safe => self.safe.push(self.candidates.actions(index).to_vec()),
                }
            }
            decided |= !round.verdicts.is_empty();
            // Claims are handed out in order, and a claimed candidate is
            // either decided or its member's to go on with.
            if first_pass {
                self.next_candidate += round.claims;
            } else {
                self.next_deferred += round.claims;
            }
            for member in &self.crew {
                let learned = &member.checker;
                self.checker.learn(
                    learned.threats.first().cloned(),
                    learned.killers.first().cloned(),
                );
            }
            self.checker.spent += round.spent;
            if self.crew.iter().any(|member| member.pending.is_some()) && self.safe.is_empty() {
                return Progress::Stopped {
                    needs_longer: !decided,
                };
            }
        }
        Progress::Found
    }

    /// Lists the root's turns as candidate defences, best first by the
    /// static evaluation, once; turns that win at once are proven safe.
    pub(super) fn list_candidates(
        &mut self,
        position: &Position,
        rules: &Rules,
        tunables: &Tunables,
        deadline: Option<Instant>,
        pool: Option<&ThreadPool>,
    ) {
        self.listed = true;
        let listed =
            self.checker
                .candidates(position, rules, deadline, true, |results, deadline| {
                    evaluation_keys(results, deadline, rules, tunables, pool)
                });
        if let Some(listed) = listed {
            self.safe.extend(listed.found);
            self.candidates = listed.turns;
        }
    }

    /// Keys and orders the candidates with a sacrifice, which
    /// [`RootVerifier::list_candidates`] left in listing order.
    pub(super) fn order_rest(
        &mut self,
        rules: &Rules,
        tunables: &Tunables,
        deadline: Option<Instant>,
        pool: Option<&ThreadPool>,
    ) {
        self.candidates
            .order_rest(|results| evaluation_keys(results, deadline, rules, tunables, pool));
    }

    /// Decides candidates ([`RootVerifier::advance_on_pool`] with a pool,
    /// else [`RootVerifier::advance_list`]) until `deadline`, keying the
    /// turns with a sacrifice when the first pass reaches them, until
    /// `keys_deadline` (the check's whole time, where `deadline` may end a
    /// slice of it: keys cut short stay cut, and the turns they miss are
    /// tried in listing order).
    pub(super) fn advance(
        &mut self,
        rules: &Rules,
        tunables: &Tunables,
        work: u64,
        (keys_deadline, deadline): (Option<Instant>, Option<Instant>),
        pool: Option<&ThreadPool>,
    ) -> Progress {
        loop {
            let progress = match pool {
                Some(pool) => self.advance_on_pool(pool, rules, work, deadline),
                None => self.advance_list(rules, work, deadline),
            };
            if !matches!(progress, Progress::Unkeyed) {
                return progress;
            }
            self.order_rest(rules, tunables, keys_deadline, pool);
        }
    }

    /// Where the first pass ends for now, and at its end the second pass's
    /// order: `Err(Progress::Unkeyed)` when the first pass has reached the
    /// turns not keyed yet. The turns put aside are tried by key, however
    /// the first pass met them.
    pub(super) fn first_pass_end(&mut self) -> Result<usize, Progress> {
        let keyed = self.candidates.keyed();
        if self.next_candidate < keyed {
            return Ok(keyed);
        }
        if keyed < self.candidates.len() {
            return Err(Progress::Unkeyed);
        }
        if !self.deferred_sorted {
            self.deferred_sorted = true;
            let candidates = &self.candidates;
            self.deferred[self.next_deferred..].sort_by(|&left, &right| {
                candidates
                    .key(left)
                    .total_cmp(&candidates.key(right))
                    .then(left.cmp(&right))
            });
        }
        Ok(keyed)
    }

    /// Decides the defence search's candidates in turn, from where it
    /// stopped, until one defends (it joins the proven safe turns), none is
    /// left, or the checker has spent `work` since its last reset or the
    /// deadline came.
    fn advance_list(&mut self, rules: &Rules, work: u64, deadline: Option<Instant>) -> Progress {
        let mut decided = false;
        while self.safe.is_empty() {
            let budget = ThreatBudget {
                work: work.saturating_sub(self.checker.work_spent()),
                deadline,
            };
            // The first pass puts aside the turns after which a known plan
            // still threatens: most are lost to it, and proving so lists
            // all the reply turns. The second pass decides them.
            let end = match self.first_pass_end() {
                Ok(end) => end,
                Err(unkeyed) => return unkeyed,
            };
            let first_pass = self.next_candidate < end;
            let index = if first_pass {
                self.next_candidate
            } else if let Some(&index) = self.deferred.get(self.next_deferred) {
                index
            } else {
                return Progress::Exhausted;
            };
            let result = self.candidates.result(index);
            // A candidate whose full check a slice left unfinished goes on
            // with it, even if a plan learned since would put it aside: its
            // work so far would be lost, and the plans that put turns aside
            // wrongly are the ones learned late.
            let deferring = first_pass && self.unfinished != Some(index);
            let verdict = decide(&mut self.checker, result, rules, deferring, |_| budget);
            self.unfinished = match verdict {
                Err(false) => Some(index),
                _ => None,
            };
            match verdict {
                Ok(Verdict::Deferred) => {
                    self.deferred.push(index);
                    self.next_candidate += 1;
                    continue;
                }
                Ok(Verdict::Refuted) => {
                    self.refuted.push(self.candidates.actions(index).to_vec());
                    if first_pass {
                        self.next_candidate += 1;
                    } else {
                        self.next_deferred += 1;
                    }
                }
                Ok(Verdict::Safe) => self.safe.push(self.candidates.actions(index).to_vec()),
                Err(deferring) => {
                    return Progress::Stopped {
                        needs_longer: !deferring && !decided,
                    }
                }
            }
            decided = true;
        }
        Progress::Found
    }
}
