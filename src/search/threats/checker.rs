//! The exact two-turn threat checker: whether B, to move, can force a win
//! within its next two turns (the definitions are in the parent module's
//! docs). It needs no tree: a position, the rules and a budget in, an
//! exact answer or "unknown" out.
//!
//! # In what order a check works
//! [`ThreatChecker::forced_win_in_two`] asks, cheapest first:
//! 1. whether B wins at once: one solver call;
//! 2. whether one of the plans it remembers still forces the win: each is
//!    replayed action by action with every rule checked, then decided as a
//!    listed turn would be;
//! 3. then every B turn T1, listed *attack-first* ([`TurnOrder::AttackFirst`]):
//!    first the turns made only of sacrifices, catastrophes and actions at
//!    A's home or at a system connected to it, then every other turn, each
//!    once. A plan against a home acts there, so a check that finds one
//!    mostly stops within the first part, where the plain order lists it
//!    about a thousand turns in on average; proving that no plan exists
//!    lists every turn either way, a few percent slower in this order.
//!
//! Each ongoing T1 is decided as it is listed, and the listing stops at
//! the first that forces the win:
//! - *the pass test*: a pass is one of A's replies, so T1 can force a win
//!   only if A's pass after it loses at once (or A may not pass). One
//!   solver call, which its bound mostly answers without a search, puts
//!   aside nearly every T1;
//! - *the refutation*, for the few T1 left: A's own win at once first (one
//!   solver call finds a counter-attack where the listing could take
//!   thousands of replies to reach it), then the replies that refuted
//!   earlier threats (the *killers*: mostly the same defensive build or
//!   move), then every A reply in the plain order, each with a solver call
//!   after it that replays the solver's remembered win first, since until
//!   a refutation turns up every reply leaves B its win.
//!
//! Proving a plan therefore lists every reply of A's, tens of thousands in
//! big positions (50,000 to 100,000 in the slowest of the two-turn suite):
//! that listing is most of a check that finds a threat. Listing the
//! replies defence-first shortens the refutations of threats that fail but
//! makes a proof list in two passes, so the total work hardly moves; the
//! plain order stays.
//!
//! # What it remembers
//! The root checks one candidate turn after another in the same position,
//! and a plan that beats one candidate mostly beats its neighbours: the
//! checker keeps the last few winning plans ([`KILLERS`] of them, most
//! recent first) and the last few refuting replies, and replays them
//! before any listing. Once one turn is refuted its neighbours are refuted
//! several times faster. The searcher keeps its checker from turn to turn
//! until a new game, so the plans found on one turn are tried first on the
//! next. A remembered plan or reply is only an order to try things in:
//! every replay is checked against the rules and decided in full, so what
//! the checker remembers changes how fast it answers (and so, under a
//! budget, whether it answers in time), never what it answers.
//!
//! [`ThreatChecker::still_threatened`] is the cheap half of a remembered
//! plan: the plan replayed, A's pass lost, no win at once for A and no
//! killer that answers. It is necessary for the plan to force the win, not
//! sufficient, and the defence search uses it to put aside the turns that
//! are most likely lost.
//!
//! # Budget and clock
//! Every listed turn and every solver state is charged
//! ([`ThreatChecker::charge`]); the work limit is tested at every charge,
//! so a node-limited search stops its checks at the same point in every
//! run. The deadline is read every [`CHARGES_PER_CLOCK_READING`] charges:
//! a charge comes with every reply tried, often a microsecond apart, and
//! reading the clock at each takes about a tenth of a check's time.
//!
//! A check that runs out remembers where it stopped (the sibling
//! `resume` module) and the next check of the same position goes on from
//! there. When it ran out among the replies to a T1 that passed the pass
//! test and that no reply tried had answered
//! ([`ThreatChecker::stopped_in_replies`]), the threat is most likely real
//! and only slow to prove. The verifier takes that as a reason to hold a
//! clocked search longer, never as a found threat: a signal cheaper than
//! the proof fires far more often on positions where the check does have
//! an answer, and acting on it as on a proof costs games.

use std::time::Instant;

use super::budget::{OutOfBudget, ThreatBudget};
use super::result_of;
use super::resume::{first_listed, ResumePoint, KEPT_LISTINGS};
use crate::rules::{Action, Outcome, Position, Rules, TurnEnumerator, TurnOrder, TurnState};
use crate::search::solver::{passed, Solver};

/// How many refuting replies are remembered and tried first.
const KILLERS: usize = 8;

/// How many charges go by between two readings of the clock. A charge
/// mostly follows one reply tried, a microsecond or so of work, so a check
/// past its deadline mostly stops within a few tens of microseconds; a
/// charge for a long solver call can stretch that.
const CHARGES_PER_CLOCK_READING: u32 = 16;

/// The exact two-turn threat checker, with reusable buffers and the killer
/// replies it has learned. One per thread.
#[derive(Default)]
pub struct ThreatChecker {
    /// The win-in-1 solver behind every "wins at once": one per checker, so
    /// that its remembered wins carry from call to call.
    solver: Solver,
    /// Lists B's turns.
    pub(super) outer: TurnEnumerator,
    /// Lists A's replies.
    inner: TurnEnumerator,
    /// A's replies that refuted a threat, most recent first.
    pub(super) killers: Vec<Vec<Action>>,
    /// B's turns that forced a win, most recent first: the root's checks
    /// test one candidate turn after another in the same position, and a
    /// plan that beats one candidate usually beats its neighbours too.
    pub(super) threats: Vec<Vec<Action>>,
    /// Where checks that ran out of budget stopped, most recent first: a
    /// position B was to move in and how many of B's listed turns were
    /// shown not to force a win. Asked again (the in-search checks look at
    /// the same turn again, the defence search resumes its candidate), the
    /// check lists B's turns in the same order and decides only the rest,
    /// so that time-limited checks add up instead of starting over.
    pub(super) resume_turns: Vec<ResumePoint>,
    /// The same for A's replies to one B turn: how many were shown not to
    /// refute it. Proving that a plan forces a win decides every reply, the
    /// longest part of a check that finds one.
    pub(super) resume_replies: Vec<ResumePoint>,
    /// Work units spent since the last [`ThreatChecker::reset_work`]; during
    /// a check, since the check began ([`ThreatChecker::within`]).
    pub(super) spent: u64,
    /// The budget of the check under way, if any: charges outside a check
    /// are counted and never refused.
    budget: Option<ThreatBudget>,
    /// Charges since the clock was last read against the budget's deadline:
    /// a charge comes with every reply a check tries, often a microsecond
    /// apart, and reading the clock each time takes a tenth of a check's
    /// time.
    unclocked: u32,
    /// Set for a checker of the defence search's crew (the sibling `crew`
    /// module): it works on one candidate at a
    /// time, so it keeps one stopped listing of each kind instead of
    /// [`KEPT_LISTINGS`], whose memos can take megabytes each; sixteen
    /// members keeping four would be a lot of memory beside `Hash`.
    crew_member: bool,
    /// Set when the last check ran out of budget while listing the replies
    /// to a turn of the opponent's that threatens a win at once.
    pub(super) stopped_in_replies: bool,
}

impl ThreatChecker {
    /// Work units spent by the checks since the checker was made (or
    /// [`ThreatChecker::reset_work`]), for profiling and budgets.
    pub fn work_spent(&self) -> u64 {
        self.spent
    }

    /// How many winning plans of the opponent the checker remembers.
    #[cfg(test)]
    pub(in crate::search) fn remembered_plans(&self) -> usize {
        self.threats.len()
    }

    /// Starts counting work from zero again.
    pub fn reset_work(&mut self) {
        self.spent = 0;
    }

    /// How many stopped listings of each kind this checker keeps.
    fn kept_listings(&self) -> usize {
        if self.crew_member {
            1
        } else {
            KEPT_LISTINGS
        }
    }

    /// A checker for another thread that starts from this one's remembered
    /// plans and refutations (its buffers and resume points start empty).
    pub(super) fn seeded(&self) -> ThreatChecker {
        ThreatChecker {
            threats: self.threats.clone(),
            killers: self.killers.clone(),
            crew_member: true,
            ..ThreatChecker::default()
        }
    }

    /// Remembers a plan and a refutation another checker found, unless
    /// already known.
    pub(super) fn learn(&mut self, plan: Option<Vec<Action>>, killer: Option<Vec<Action>>) {
        if let Some(plan) = plan.filter(|plan| !self.threats.contains(plan)) {
            remember_first(&mut self.threats, plan);
        }
        if let Some(killer) = killer.filter(|killer| !self.killers.contains(killer)) {
            remember_first(&mut self.killers, killer);
        }
    }

    /// Whether the side to move can force a win within its next two turns
    /// whatever the opponent replies (see the module docs). `None` when the
    /// budget ran out first. A position in setup, mid-turn or already
    /// decided answers `Some(false)`.
    pub fn forced_win_in_two(
        &mut self,
        position: &Position,
        rules: &Rules,
        budget: ThreatBudget,
    ) -> Option<bool> {
        self.within(budget, |checker| checker.forced_win(position, rules))
    }

    /// The side to move's first turn of a plan that forces a win within its
    /// next two turns (see [`ThreatChecker::forced_win_in_two`]), or `None`
    /// when there is none, when the budget ran out, or when it wins at once
    /// (the solver's business). Exact: every reply of the opponent to the
    /// returned turn leaves a win at once.
    pub fn winning_plan(
        &mut self,
        position: &Position,
        rules: &Rules,
        budget: ThreatBudget,
    ) -> Option<Vec<Action>> {
        let wins = self.within(budget, |checker| {
            if checker.wins_at_once(position, rules)? {
                return Ok(false);
            }
            checker.forced_win(position, rules)
        });
        // A found plan is first in the list: listed or replayed.
        wins.filter(|&wins| wins)
            .and_then(|_| self.threats.first().cloned())
    }

    /// Runs `check` under `budget`, its work counted from zero and then
    /// added to the work spent; `None` when the budget ran out.
    pub(super) fn within(
        &mut self,
        budget: ThreatBudget,
        check: impl FnOnce(&mut Self) -> Result<bool, OutOfBudget>,
    ) -> Option<bool> {
        self.budget = Some(budget);
        self.stopped_in_replies = false;
        let start = self.spent;
        self.spent = 0;
        let answer = check(self).ok();
        self.spent += start;
        self.budget = None;
        answer
    }

    /// Whether `turn`, played by the side to move in `position`, is a
    /// defence: it wins at once, or the game goes on and the opponent cannot
    /// force a win in two. An illegal turn or a mutual elimination is not.
    /// `None` when the budget ran out first.
    pub fn is_defence(
        &mut self,
        position: &Position,
        turn: &[Action],
        rules: &Rules,
        budget: ThreatBudget,
    ) -> Option<bool> {
        let mut after = *position;
        if turn
            .iter()
            .any(|&action| after.try_apply(rules, action).is_err())
        {
            return Some(false);
        }
        match after.end_turn(rules) {
            Ok(Outcome::Win(winner)) => Some(winner == position.side_to_move()),
            Ok(Outcome::Draw) | Err(_) => Some(false),
            Ok(Outcome::Ongoing) => self
                .forced_win_in_two(&after, rules, budget)
                .map(|wins| !wins),
        }
    }

    /// Counts `work` units, and stops the check when its budget is spent
    /// or, read once every [`CHARGES_PER_CLOCK_READING`] charges, its
    /// deadline has come.
    fn charge(&mut self, work: u64) -> Result<(), OutOfBudget> {
        self.spent += work;
        let Some(budget) = self.budget else {
            return Ok(());
        };
        if self.spent > budget.work {
            return Err(OutOfBudget);
        }
        self.unclocked += 1;
        if self.unclocked >= CHARGES_PER_CLOCK_READING {
            self.unclocked = 0;
            if budget
                .deadline
                .is_some_and(|deadline| Instant::now() >= deadline)
            {
                return Err(OutOfBudget);
            }
        }
        Ok(())
    }

    /// The remaining work, as a solver state limit.
    fn solver_limit(&self) -> u64 {
        self.budget
            .map_or(u64::MAX, |budget| budget.work.saturating_sub(self.spent))
            .max(1)
    }

    /// Whether the side to move wins at once, exactly or out of budget.
    pub(super) fn wins_at_once(
        &mut self,
        position: &Position,
        rules: &Rules,
    ) -> Result<bool, OutOfBudget> {
        self.solve(position, rules, false)
    }

    /// [`ThreatChecker::wins_at_once`] where the answer is mostly yes: the
    /// solver replays its remembered wins before computing its bound.
    fn wins_at_once_expected(
        &mut self,
        position: &Position,
        rules: &Rules,
    ) -> Result<bool, OutOfBudget> {
        self.solve(position, rules, true)
    }

    /// One solver call within the budget left, its states charged.
    fn solve(
        &mut self,
        position: &Position,
        rules: &Rules,
        replay_first: bool,
    ) -> Result<bool, OutOfBudget> {
        let limit = self.solver_limit();
        let answer = if replay_first {
            self.solver.can_win_limited_expected(position, rules, limit)
        } else {
            self.solver.can_win_limited(position, rules, limit)
        };
        self.charge(self.solver.states())?;
        answer.ok_or(OutOfBudget)
    }

    /// Whether B, to move in `position`, forces a win in two, within the
    /// budget of the check under way (see the module docs for the order).
    fn forced_win(&mut self, position: &Position, rules: &Rules) -> Result<bool, OutOfBudget> {
        if position.in_setup()
            || position.turn_state() != TurnState::Start
            || position.outcome() != Outcome::Ongoing
        {
            return Ok(false);
        }
        if self.wins_at_once(position, rules)? {
            return Ok(true);
        }
        if self.replays_threat(position, rules)? {
            return Ok(true);
        }
        // B's turns after which A's pass loses at once (or A cannot pass)
        // are the only candidates for a forced win (see the module docs);
        // each is tested for a refutation as soon as it is listed, so that
        // the listing stops at the first forced win.
        // Plans act at A's home: B's turns there are listed first.
        self.outer.set_order(TurnOrder::AttackFirst);
        let mut outer = std::mem::take(&mut self.outer);
        let mut stops = std::mem::take(&mut self.resume_turns);
        let deadline = self.budget.and_then(|budget| budget.deadline);
        let kept = self.kept_listings();
        let search = first_listed(
            &mut outer,
            &mut stops,
            kept,
            position,
            rules,
            deadline,
            |result, outcome| match outcome {
                Outcome::Ongoing => self.forces(result, rules),
                _ => Ok(false),
            },
        );
        self.outer = outer;
        self.resume_turns = stops;
        let Some(threat) = search? else {
            return Ok(false);
        };
        remember_first(&mut self.threats, threat);
        Ok(true)
    }

    /// Whether `result`, the position after a B turn that left the game
    /// going, forces B's win: A's pass (if A may pass) loses at once, and no
    /// A turn refutes.
    fn forces(&mut self, result: &Position, rules: &Rules) -> Result<bool, OutOfBudget> {
        let threatening = self.threatens(result, rules)?;
        self.charge(1)?;
        if !threatening {
            return Ok(false);
        }
        let refuted = self.refuted(result, rules);
        self.stopped_in_replies = refuted.is_err();
        Ok(!refuted?)
    }

    /// Whether A, to move in `result`, loses at once after a pass (or may
    /// not pass): the cheap half of [`ThreatChecker::forces`].
    fn threatens(&mut self, result: &Position, rules: &Rules) -> Result<bool, OutOfBudget> {
        match passed(result, rules) {
            Some(after_pass) => self.wins_at_once(&after_pass, rules),
            None => Ok(true),
        }
    }

    /// Whether one of the remembered winning plans, replayed by B to move in
    /// `position`, still leaves A lost at once after a pass and without a
    /// win at once of its own: a necessary condition for the plan to force a
    /// win, and a cheap one (two solver calls a plan, where deciding the plan
    /// lists all of A's replies).
    pub(super) fn still_threatened(
        &mut self,
        position: &Position,
        rules: &Rules,
        budget: ThreatBudget,
    ) -> Option<bool> {
        self.within(budget, |checker| {
            for index in 0..checker.threats.len() {
                let Some(result) = checker.replayed(index, position, rules) else {
                    continue;
                };
                // A win at once of A's own would refute the plan, and so
                // would a reply that refuted a plan before.
                if checker.threatens(&result, rules)?
                    && !checker.wins_at_once(&result, rules)?
                    && !checker.killer_refutes(&result, rules)?
                {
                    return Ok(true);
                }
            }
            Ok(false)
        })
    }

    /// The position after remembered plan `index`, replayed by the side to
    /// move in `position`, if every action is legal there and the game goes
    /// on after it.
    fn replayed(&self, index: usize, position: &Position, rules: &Rules) -> Option<Position> {
        result_of(position, &self.threats[index], rules)
    }

    /// Whether one of the remembered winning plans still forces a win for
    /// B, to move in `position`. Exact: a plan is replayed action by action
    /// with every rule checked, and then decided like a listed turn.
    fn replays_threat(&mut self, position: &Position, rules: &Rules) -> Result<bool, OutOfBudget> {
        for index in 0..self.threats.len() {
            let Some(result) = self.replayed(index, position, rules) else {
                continue;
            };
            if self.forces(&result, rules)? {
                let threat = self.threats.remove(index);
                self.threats.insert(0, threat);
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// Whether A, to move in `position`, has a turn that wins, draws or
    /// leaves B no win at once.
    fn refuted(&mut self, position: &Position, rules: &Rules) -> Result<bool, OutOfBudget> {
        // A counter-attack that wins at once refutes, and one solver call
        // finds it where the listing could take thousands of turns first.
        if self.wins_at_once(position, rules)? {
            return Ok(true);
        }
        if self.killer_refutes(position, rules)? {
            return Ok(true);
        }
        let mut inner = std::mem::take(&mut self.inner);
        let mut stops = std::mem::take(&mut self.resume_replies);
        let deadline = self.budget.and_then(|budget| budget.deadline);
        let mover = position.side_to_move();
        let kept = self.kept_listings();
        let search = first_listed(
            &mut inner,
            &mut stops,
            kept,
            position,
            rules,
            deadline,
            |result, outcome| {
                let refutes = match outcome {
                    Outcome::Win(winner) => winner == mover,
                    Outcome::Draw => true,
                    // Until a refutation turns up, every reply leaves B
                    // its win: the remembered one is tried first.
                    Outcome::Ongoing => !self.wins_at_once_expected(result, rules)?,
                };
                self.charge(1)?;
                Ok(refutes)
            },
        );
        self.inner = inner;
        self.resume_replies = stops;
        let Some(killer) = search? else {
            return Ok(false);
        };
        remember_first(&mut self.killers, killer);
        Ok(true)
    }

    /// Whether one of the remembered refuting replies, played by A to move
    /// in `position`, refutes B's turn (see [`ThreatChecker::refutes`]); the
    /// one that does moves to the front.
    fn killer_refutes(&mut self, position: &Position, rules: &Rules) -> Result<bool, OutOfBudget> {
        for index in 0..self.killers.len() {
            let mut reply = *position;
            let legal = self.killers[index]
                .iter()
                .all(|&action| reply.try_apply(rules, action).is_ok());
            if legal && self.refutes(&mut reply, rules)? {
                let killer = self.killers.remove(index);
                self.killers.insert(0, killer);
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// Whether ending the turn in `reply` (A's actions played) refutes B.
    fn refutes(&mut self, reply: &mut Position, rules: &Rules) -> Result<bool, OutOfBudget> {
        let mover = reply.side_to_move();
        match reply.end_turn(rules) {
            Ok(Outcome::Win(winner)) => Ok(winner == mover),
            Ok(Outcome::Draw) => Ok(true),
            Ok(Outcome::Ongoing) => self.wins_at_once(reply, rules).map(|wins| !wins),
            Err(_) => Ok(false),
        }
    }
}

/// Puts `item` first in a most-recent-first list of at most [`KILLERS`].
fn remember_first(list: &mut Vec<Vec<Action>>, item: Vec<Action>) {
    list.insert(0, item);
    list.truncate(KILLERS);
}
