//! Two-turn threats: an exact check that the opponent cannot force a win
//! within its next two turns, and the root's last line of defence with it.
//!
//! The win-in-1 solver (`solver.rs`) covers a threat the opponent can carry
//! out at once. Real games were lost to plans one turn longer: the opponent
//! gathers ships for a sacrifice-move catastrophe at the mover's home (or a
//! Sitting Duck, a Bluebird) while the mover passes, and once the pieces are
//! in place no reply saves it. This module decides such plans exactly.
//!
//! # Definitions
//! Let B be the side to move in a position P at the start of a turn, and A
//! the other side. *B can force a win in two* (`forced_win_in_two`) when B
//! wins at once in P, or B has a turn T1 after which the game goes on and
//! *every* legal A turn T2 either eliminates A (a win for B) or leaves a
//! position where B wins at once. A turn of A that wins, draws (a mutual
//! elimination) or leaves B no win at once *refutes* T1.
//!
//! Side A to move in a position is under a *two-turn threat* when its
//! natural continuation (a pass, or the turn the search chose) leads to a
//! position where B can force a win in two. A *defence* (`is_defence`) is an
//! A turn that wins at once, or after which the game goes on and B cannot
//! force a win in two; in particular a defence leaves B no win at once. A
//! mutual elimination is not a defence (as it is not "safe" for the root).
//!
//! Repetition and turn limits are ignored: the check is about the board.
//!
//! # Cost and pruning
//! Exhaustively this is B's turns x A's turns x a solver call. Two exact cuts
//! make it affordable:
//! - a B turn T1 can only force a win if A's *pass* after T1 loses at once,
//!   since a pass is one of A's turns (whenever a pass is legal; when it is
//!   not, T1 is checked in full). So only the B turns that put A in check
//!   need A's replies listed, one solver call per B turn decides the rest,
//!   and the solver's own bound answers most of those without a search;
//! - one refutation is enough per T1, and the replies that refuted earlier
//!   threats ("killers": typically the same defensive build or move) are
//!   replayed first, before any listing.
//!
//! Everything is counted in *work* (listed turns plus solver states), and a
//! check gives up with `None` (unknown) past its work limit or deadline. An
//! answer it does give is exact. With no deadline the answer depends only on
//! the inputs and the order of calls on one [`ThreatChecker`], so node-limited
//! searches stay deterministic.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use rayon::prelude::*;
use rayon::ThreadPool;

use super::extract::best_turn;
use super::info::TreeReading;
use super::mcts::Shared;
use super::options::SearchLimits;
use super::players::Choice;
use super::report::Decision;
use super::solver::{passed, Solver};
use super::tree::{PROVEN_WIN, UNPROVEN};
use super::tunables::Tunables;
use crate::rules::{Action, Outcome, Position, Rules, TurnEnumerator, TurnOrder, TurnState};

/// How many refuting replies are remembered and tried first.
const KILLERS: usize = 8;

/// Work units the root's check may spend per search iteration under a node
/// limit, so that node-limited searches stay deterministic and the check
/// grows with the search.
const WORK_PER_NODE: u64 = 3000;

/// How many charges go by between two readings of the clock. A charge
/// mostly follows one reply tried, a microsecond or so of work, so a check
/// past its deadline mostly stops within a few tens of microseconds; a
/// charge for a long solver call can stretch that.
const CHARGES_PER_CLOCK_READING: u32 = 16;

/// The root's check work when the search has neither a node nor a time
/// limit (an infinite search stopped by the user).
const UNLIMITED_SEARCH_WORK: u64 = 2_000_000;

/// How much a check may spend: work units (listed turns plus solver states)
/// and, for searches on the clock, a deadline.
#[derive(Clone, Copy, Debug)]
pub struct ThreatBudget {
    /// Work units after which the check answers "unknown".
    pub work: u64,
    /// When to give up, if the search is on the clock.
    pub deadline: Option<Instant>,
}

impl ThreatBudget {
    /// A budget of `work` units with no deadline: deterministic.
    pub fn work(work: u64) -> ThreatBudget {
        ThreatBudget {
            work,
            deadline: None,
        }
    }
}

/// Why a check stopped without an answer.
struct OutOfBudget;

/// Candidate defences with their results, kept in the order they were
/// listed and tried in an order of their own (a rank is a place in that
/// order). Why not one vector of turns sorted: a root can have 60,000
/// turns, and building, moving and freeing 60,000 small vectors of
/// actions and 128-byte positions took over 10 ms past the checks'
/// deadline at 100 ms a turn; here the actions share one buffer and only
/// the order is sorted.
#[derive(Default)]
struct CandidateList {
    /// Every turn's actions, one after another.
    actions: Vec<Action>,
    /// Per listed turn, the end of its actions in `actions`.
    ends: Vec<u32>,
    /// Per listed turn, its result.
    results: Vec<Position>,
    /// The listed turns' indices, in the order to try them.
    order: Vec<u32>,
    /// Per listed turn, its key ([`UNKEYED`] until keyed).
    keys: Vec<f32>,
    /// How many of `order` are ordered by key: those after are listed but
    /// not keyed yet ([`CandidateList::order_rest`]), in listing order.
    keyed: usize,
}

impl CandidateList {
    /// Adds a turn after the others, last in the order too.
    fn push(&mut self, actions: &[Action], result: &Position) {
        self.order.push(self.results.len() as u32);
        self.actions.extend_from_slice(actions);
        self.ends.push(self.actions.len() as u32);
        self.results.push(*result);
        self.keys.push(UNKEYED);
    }

    /// How many turns, from the first in the order, are ordered by key.
    fn keyed(&self) -> usize {
        self.keyed
    }

    /// The key of the turn at `rank` ([`UNKEYED`] if it has none).
    fn key(&self, rank: usize) -> f32 {
        self.keys[self.order[rank] as usize]
    }

    /// How many turns the list holds.
    fn len(&self) -> usize {
        self.order.len()
    }

    /// Whether the list holds no turn (in check, a classification cut
    /// short leaves none to resume).
    fn is_empty(&self) -> bool {
        self.order.is_empty()
    }

    /// The actions of the turn of listing index `index`.
    fn listed_actions(&self, index: usize) -> &[Action] {
        let start = index.checked_sub(1).map_or(0, |before| self.ends[before]);
        &self.actions[start as usize..self.ends[index] as usize]
    }

    /// The actions of the turn at `rank` in the order.
    fn actions(&self, rank: usize) -> &[Action] {
        self.listed_actions(self.order[rank] as usize)
    }

    /// The result of the turn at `rank` in the order.
    fn result(&self, rank: usize) -> &Position {
        &self.results[self.order[rank] as usize]
    }

    /// The turns from `rank` on, in the order.
    fn iter_from(&self, rank: usize) -> impl Iterator<Item = (&[Action], &Position)> {
        self.order[rank.min(self.len())..].iter().map(|&index| {
            let index = index as usize;
            (self.listed_actions(index), &self.results[index])
        })
    }

    /// Every turn, in the order.
    fn iter(&self) -> impl Iterator<Item = (&[Action], &Position)> {
        self.iter_from(0)
    }

    /// Orders the turns by `keyed` (a key and a listing index each, one per
    /// turn): lowest key first, ties in listing order.
    fn order_by(&mut self, keyed: Vec<(f32, u32)>) {
        debug_assert_eq!(keyed.len(), self.results.len());
        self.order_front(keyed);
    }

    /// Puts the turns of `keyed` (a key and a listing index each) first,
    /// lowest key first with ties in listing order, and the turns not in
    /// it after them, in listing order, to be keyed later
    /// ([`CandidateList::order_rest`]).
    fn order_front(&mut self, mut keyed: Vec<(f32, u32)>) {
        sort_by_key_then_listing(&mut keyed);
        let mut taken = vec![false; self.results.len()];
        for &(key, index) in &keyed {
            self.keys[index as usize] = key;
            taken[index as usize] = true;
        }
        self.keyed = keyed.len();
        self.order = keyed.into_iter().map(|(_, index)| index).collect();
        self.order
            .extend((0..self.results.len() as u32).filter(|&index| !taken[index as usize]));
    }

    /// Keys the turns not keyed yet with `keys` (given their results, in
    /// the order's), and orders them by key after the others; turns that
    /// `keys` leaves [`UNKEYED`] stay last, in listing order.
    fn order_rest(&mut self, keys: impl FnOnce(&[&Position]) -> Vec<f32>) {
        let rest = &self.order[self.keyed..];
        let results: Vec<&Position> = rest
            .iter()
            .map(|&index| &self.results[index as usize])
            .collect();
        let mut keyed: Vec<(f32, u32)> = keys(&results)
            .into_iter()
            .zip(rest.iter().copied())
            .collect();
        sort_by_key_then_listing(&mut keyed);
        for &(key, index) in &keyed {
            self.keys[index as usize] = key;
        }
        self.order.truncate(self.keyed);
        self.order.extend(keyed.into_iter().map(|(_, index)| index));
        self.keyed = self.order.len();
    }
}

/// Sorts (key, listing index) pairs: lowest key first, ties in listing
/// order.
fn sort_by_key_then_listing(keyed: &mut [(f32, u32)]) {
    keyed.sort_unstable_by(|left, right| left.0.total_cmp(&right.0).then(left.1.cmp(&right.1)));
}

/// The side to move's turns as candidate defences (see
/// [`ThreatChecker::candidates`]).
#[derive(Default)]
struct Candidates {
    /// Turns that win at once: defences without a check.
    found: Vec<Vec<Action>>,
    /// Turns after which the game goes on, best first, with their results.
    turns: CandidateList,
}

/// The exact two-turn threat checker, with reusable buffers and the killer
/// replies it has learned. One per thread.
#[derive(Default)]
pub struct ThreatChecker {
    solver: Solver,
    /// Lists B's turns.
    outer: TurnEnumerator,
    /// Lists A's replies.
    inner: TurnEnumerator,
    /// A's replies that refuted a threat, most recent first.
    killers: Vec<Vec<Action>>,
    /// B's turns that forced a win, most recent first: the root's checks
    /// test one candidate turn after another in the same position, and a
    /// plan that beats one candidate usually beats its neighbours too.
    threats: Vec<Vec<Action>>,
    /// Where checks that ran out of budget stopped, most recent first: a
    /// position B was to move in and how many of B's listed turns were
    /// shown not to force a win. Asked again (the in-search checks look at
    /// the same turn again, the defence search resumes its candidate), the
    /// check lists B's turns in the same order and decides only the rest,
    /// so that time-limited checks add up instead of starting over.
    resume_turns: Vec<ResumePoint>,
    /// The same for A's replies to one B turn: how many were shown not to
    /// refute it. Proving that a plan forces a win decides every reply, the
    /// longest part of a check that finds one.
    resume_replies: Vec<ResumePoint>,
    spent: u64,
    budget: Option<ThreatBudget>,
    /// Charges since the clock was last read against the budget's deadline:
    /// a charge comes with every reply a check tries, often a microsecond
    /// apart, and reading the clock each time took a tenth of a check's time.
    unclocked: u32,
    /// Set for a checker of the defence search's crew
    /// ([`RootVerifier::advance_on_pool`]): it works on one candidate at a
    /// time, so it keeps one stopped listing of each kind instead of
    /// [`KEPT_LISTINGS`], whose memos can take megabytes each; sixteen
    /// members keeping four would be a lot of memory beside `Hash`.
    crew_member: bool,
    /// Set when the last check ran out of budget while listing the replies
    /// to a turn of the opponent's that threatens a win at once.
    stopped_in_replies: bool,
}

impl ThreatChecker {
    /// Work units spent by the checks since the checker was made (or
    /// [`ThreatChecker::reset_work`]), for profiling and budgets.
    pub fn work_spent(&self) -> u64 {
        self.spent
    }

    /// How many winning plans of the opponent the checker remembers.
    #[cfg(test)]
    pub(super) fn remembered_plans(&self) -> usize {
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
    fn seeded(&self) -> ThreatChecker {
        ThreatChecker {
            threats: self.threats.clone(),
            killers: self.killers.clone(),
            crew_member: true,
            ..ThreatChecker::default()
        }
    }

    /// Remembers a plan and a refutation another checker found, unless
    /// already known.
    fn learn(&mut self, plan: Option<Vec<Action>>, killer: Option<Vec<Action>>) {
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
    fn within(
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

    /// Every defence of the side to move, or `None` when the budget ran out
    /// first. Turns are tried in `order`'s order (lowest key first: e.g. the
    /// opponent's evaluation), and the listing stops after `wanted` defences.
    pub fn defences(
        &mut self,
        position: &Position,
        rules: &Rules,
        budget: ThreatBudget,
        wanted: usize,
        order: impl FnMut(&Position) -> f32,
    ) -> Option<Vec<Vec<Action>>> {
        let listing = self.spent;
        let Candidates { mut found, turns } = self.candidates(
            position,
            rules,
            budget.deadline,
            false,
            |results, deadline| keys_in_turn(results, deadline, order),
        )?;
        let mut spent = self.spent - listing;
        for (actions, result) in turns.iter() {
            if found.len() >= wanted {
                break;
            }
            let remaining = ThreatBudget {
                work: budget.work.checked_sub(spent)?,
                deadline: budget.deadline,
            };
            let before = self.spent;
            let wins = self.forced_win_in_two(result, rules, remaining)?;
            spent += self.spent - before;
            if !wins {
                found.push(actions.to_vec());
            }
        }
        Some(found)
    }

    /// Lists the turns of the side to move: those that win at once, and
    /// those after which the game goes on, sorted by `order` (lowest key
    /// first), each a candidate defence to decide with
    /// [`ThreatChecker::forced_win_in_two`] on its result. `None` when the
    /// deadline cut the listing short; turns the deadline left unkeyed come
    /// last, in listing order ([`UNKEYED`]). With `quiet_only`, only the
    /// turns without a sacrifice are keyed and sorted, and the others follow
    /// in listing order, to be keyed when the search reaches them
    /// ([`CandidateList::order_rest`]). Each listed turn counts one unit of
    /// work.
    fn candidates(
        &mut self,
        position: &Position,
        rules: &Rules,
        deadline: Option<Instant>,
        quiet_only: bool,
        keys: impl FnOnce(&[&Position], Option<Instant>) -> Vec<f32>,
    ) -> Option<Candidates> {
        if position.in_setup()
            || position.turn_state() != TurnState::Start
            || position.outcome() != Outcome::Ongoing
        {
            return Some(Candidates::default());
        }
        let mover = position.side_to_move();
        let mut found = Vec::new();
        let mut turns = CandidateList::default();
        // The turns without a sacrifice are keyed first: they are tens
        // where the others can be tens of thousands, and when the deadline
        // cuts the keying short they are ordered at least (in the suite's
        // biggest positions the defence is often one of them).
        let (mut quiet, mut sacrificing) = (Vec::new(), Vec::new());
        let mut listed = 0;
        // Every turn is listed and sorted: the plain order costs least.
        self.outer.set_order(TurnOrder::Plain);
        let complete = self.outer.for_each_turn_until(
            position,
            rules,
            deadline,
            |actions, result, outcome| {
                listed += 1;
                match outcome {
                    Outcome::Win(winner) if winner == mover => found.push(actions.to_vec()),
                    Outcome::Ongoing => {
                        let index = turns.len() as u32;
                        if actions
                            .iter()
                            .any(|action| matches!(action, Action::Sacrifice { .. }))
                        {
                            sacrificing.push(index);
                        } else {
                            quiet.push(index);
                        }
                        turns.push(actions, result);
                    }
                    _ => {}
                }
            },
        );
        if !complete {
            return None;
        }
        self.spent += listed;
        let mut keying = quiet;
        if !quiet_only {
            keying.append(&mut sacrificing);
        }
        let results: Vec<&Position> = keying
            .iter()
            .map(|&index| &turns.results[index as usize])
            .collect();
        let keyed = keys(&results, deadline).into_iter().zip(keying).collect();
        turns.order_front(keyed);
        Some(Candidates { found, turns })
    }

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
    fn wins_at_once(&mut self, position: &Position, rules: &Rules) -> Result<bool, OutOfBudget> {
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
    fn still_threatened(
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

/// The keys of `results` by `order`, one after another on this thread;
/// from `deadline` on (ordering can cost a solver call and an evaluation a
/// turn, over tens of thousands), the rest get [`UNKEYED`].
fn keys_in_turn(
    results: &[&Position],
    deadline: Option<Instant>,
    mut order: impl FnMut(&Position) -> f32,
) -> Vec<f32> {
    let mut keys = Vec::with_capacity(results.len());
    for (index, result) in results.iter().enumerate() {
        if index % 64 == 0 && deadline.is_some_and(|deadline| Instant::now() >= deadline) {
            keys.resize(results.len(), UNKEYED);
            break;
        }
        keys.push(order(result));
    }
    keys
}

/// The key of a candidate that the deadline left unkeyed: after every keyed
/// one, in the listing's order. Why not give up the whole list, as before:
/// in a position of 60,000 turns the keys take longer than the checks'
/// share, and a list ordered in part still holds the defences.
const UNKEYED: f32 = f32::INFINITY;

/// The keys of `results` by the static evaluation (for the side to move in
/// each, the opponent of the turn's mover), spread over `pool`'s threads,
/// each with a solver of its own; from `deadline` on, [`UNKEYED`].
fn keys_on_pool(
    pool: &ThreadPool,
    results: &[&Position],
    deadline: Option<Instant>,
    rules: &Rules,
    tunables: &Tunables,
) -> Vec<f32> {
    let late = AtomicBool::new(false);
    pool.install(|| {
        results
            .par_iter()
            .enumerate()
            .map_init(Solver::default, |solver, (index, result)| {
                if late.load(Ordering::Relaxed) {
                    return UNKEYED;
                }
                if index % 64 == 0 && deadline.is_some_and(|deadline| Instant::now() >= deadline) {
                    late.store(true, Ordering::Relaxed);
                    return UNKEYED;
                }
                super::static_evaluation_using(result, rules, tunables, solver)
            })
            .collect()
    })
}

/// The keys of `results` by the static evaluation, on `pool`'s threads if
/// given, else on this one; from `deadline` on, [`UNKEYED`].
fn evaluation_keys(
    results: &[&Position],
    deadline: Option<Instant>,
    rules: &Rules,
    tunables: &Tunables,
    pool: Option<&ThreadPool>,
) -> Vec<f32> {
    match pool {
        Some(pool) => keys_on_pool(pool, results, deadline, rules, tunables),
        None => {
            let mut solver = Solver::default();
            keys_in_turn(results, deadline, |result| {
                super::static_evaluation_using(result, rules, tunables, &mut solver)
            })
        }
    }
}

/// The first turn `enumerator` lists in `position` that `test` (given the
/// turn's result and outcome) accepts. The listing stops at that turn: the
/// rest, often thousands, change nothing. When the test runs out of budget
/// or the listing reaches `deadline`, `stops` records how many listed turns
/// were rejected, and the listing itself (the most recent `kept`), and the next
/// search of the same position in `stops` goes on with that listing, or
/// lists again and skips the rejected turns without testing them again.
fn first_listed(
    enumerator: &mut TurnEnumerator,
    stops: &mut Vec<ResumePoint>,
    kept: usize,
    position: &Position,
    rules: &Rules,
    deadline: Option<Instant>,
    mut test: impl FnMut(&Position, Outcome) -> Result<bool, OutOfBudget>,
) -> Result<Option<Vec<Action>>, OutOfBudget> {
    let (mut decided, skip, listing) = match take_resume_point(stops, position, rules) {
        Some(ResumePoint {
            decided,
            listing: Some(listing),
            ..
        }) => (decided, 0, Some(listing)),
        Some(point) => (0, point.decided, None),
        None => (0, 0, None),
    };
    let resumed = listing.is_some();
    let mut pending = None;
    if let Some(listing) = listing {
        let StoppedListing {
            enumerator: stopped,
            pending: undecided,
        } = *listing;
        *enumerator = stopped;
        pending = undecided;
    }
    let mut found = None;
    let mut out_of_budget = false;
    // The turn whose test ran out of budget last time comes first.
    if let Some((actions, result, outcome)) = pending.take() {
        match test(&result, outcome) {
            Ok(true) => return Ok(Some(actions)),
            Ok(false) => decided += 1,
            Err(OutOfBudget) => {
                pending = Some((actions, result, outcome));
                out_of_budget = true;
            }
        }
    }
    let mut complete = true;
    if !out_of_budget {
        let visit = |actions: &[Action], result: &Position, outcome: Outcome| {
            if decided < skip {
                decided += 1;
                return true;
            }
            match test(result, outcome) {
                Ok(true) => {
                    found = Some(actions.to_vec());
                    false
                }
                Ok(false) => {
                    decided += 1;
                    true
                }
                Err(OutOfBudget) => {
                    pending = Some((actions.to_vec(), *result, outcome));
                    out_of_budget = true;
                    false
                }
            }
        };
        complete = if resumed {
            enumerator.resume_while(position, rules, deadline, visit)
        } else {
            enumerator.for_each_turn_while(position, rules, deadline, visit)
        };
    }
    if found.is_some() {
        return Ok(found);
    }
    if out_of_budget || !complete {
        // A listing stopped among the turns to skip is not kept: it would
        // give them again.
        let listing = (decided >= skip && enumerator.is_resumable()).then(|| {
            Box::new(StoppedListing {
                enumerator: std::mem::take(enumerator),
                pending,
            })
        });
        stops.insert(
            0,
            ResumePoint {
                position: *position,
                rules: *rules,
                decided: decided.max(skip),
                listing,
            },
        );
        stops.truncate(RESUME_POINTS);
        for older in stops.iter_mut().skip(kept) {
            older.listing = None;
        }
        return Err(OutOfBudget);
    }
    Ok(None)
}

/// Puts `item` first in a most-recent-first list of at most [`KILLERS`].
fn remember_first(list: &mut Vec<Vec<Action>>, item: Vec<Action>) {
    list.insert(0, item);
    list.truncate(KILLERS);
}

/// Where a check that ran out of budget stopped ([`ThreatChecker`]'s
/// `resume_turns` and `resume_replies`).
struct ResumePoint {
    /// The position whose turns were being listed, and the rules.
    position: Position,
    rules: Rules,
    /// How many of the first listed turns were decided.
    decided: usize,
    /// The stopped listing, to go on with (kept for the most recent few
    /// points only: a big listing's memo takes megabytes).
    listing: Option<Box<StoppedListing>>,
}

/// A listing that stopped, with the turn it stopped at when that turn's test
/// ran out of budget (listed, so the listing will not give it again, but not
/// decided).
struct StoppedListing {
    enumerator: TurnEnumerator,
    pending: Option<(Vec<Action>, Position, Outcome)>,
}

/// The resume point of an earlier check of `position` that ran out of
/// budget, if any, forgetting it: the caller records it again if it runs
/// out too. The same position means the same systems in the same slots (the
/// listing order follows the slots) under the same rules.
fn take_resume_point(
    points: &mut Vec<ResumePoint>,
    position: &Position,
    rules: &Rules,
) -> Option<ResumePoint> {
    let found = points.iter().position(|point| {
        point.rules == *rules
            && point.position == *position
            && point.position.slot_hashes() == position.slot_hashes()
    })?;
    Some(points.remove(found))
}

/// Runs work on all of a search's threads while its tree waits: how the
/// root's defence search uses more than one thread ([`RootVerifier::visit`]).
pub(super) trait Crew {
    /// Runs `work` with the search's helpers stopped, giving it a pool of as
    /// many threads as the search has.
    fn run(&self, work: &mut dyn FnMut(&ThreadPool));
}

/// What deciding one candidate defence found ([`decide_on_pool`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Verdict {
    /// A remembered plan still threatens after it: left for the second pass.
    Deferred,
    /// The opponent forces a win in two after it.
    Refuted,
    /// It defends.
    Safe,
}

/// Decides the candidate defence whose result is `result` with `checker`:
/// in the first pass, [`Verdict::Deferred`] if a remembered plan still
/// threatens after it (most such turns are lost, and proving so lists
/// every reply), else whether the opponent forces a win in two. `budget`
/// gives each of the two checks its budget. `Err(deferring)` when the
/// budget ran out, `deferring` telling whether it was during the first.
fn decide(
    checker: &mut ThreatChecker,
    result: &Position,
    rules: &Rules,
    first_pass: bool,
    budget: impl Fn(&ThreatChecker) -> ThreatBudget,
) -> Result<Verdict, bool> {
    if first_pass {
        match checker.still_threatened(result, rules, budget(checker)) {
            Some(true) => return Ok(Verdict::Deferred),
            Some(false) => {}
            None => return Err(true),
        }
    }
    match checker.forced_win_in_two(result, rules, budget(checker)) {
        Some(true) => Ok(Verdict::Refuted),
        Some(false) => Ok(Verdict::Safe),
        None => Err(false),
    }
}

/// The items a round of [`decide_on_pool`] hands out, by claim: a range of
/// candidate indices (the first pass) or a list of them (the deferred).
#[derive(Clone, Copy)]
enum Items<'a> {
    Range(usize, usize),
    List(&'a [usize]),
}

impl Items<'_> {
    /// The candidate index of claim `claim`, if there is one.
    fn get(self, claim: usize) -> Option<usize> {
        match self {
            Items::Range(start, end) => (claim < end - start).then_some(start + claim),
            Items::List(list) => list.get(claim).copied(),
        }
    }

    fn is_empty(self) -> bool {
        self.get(0).is_none()
    }
}

/// One thread's share of the defence search on a pool: its checker, whose
/// resume points let a candidate that needs longer than a slice go on
/// where it stopped, and that candidate (its index, and whether it is in
/// the first pass).
struct CrewMember {
    checker: ThreatChecker,
    pending: Option<(usize, bool)>,
}

/// One round of [`decide_on_pool`].
struct Round {
    /// (claim order, candidate index, verdict) of every candidate decided;
    /// a candidate a member went on with has no claim (`usize::MAX`).
    verdicts: Vec<(usize, usize, Verdict)>,
    /// How many new items were claimed.
    claims: usize,
    /// Work spent by all the members.
    spent: u64,
}

/// Decides candidates on every thread of `pool`, one [`CrewMember`] each:
/// a member first goes on with the candidate it stopped at last round,
/// then claims the next of `candidates[items[..]]`, until one defends, the
/// items end, or its budget runs out (`each`: its own share of work; the
/// deadline is common). In the first pass a candidate after which a
/// remembered plan still threatens is only marked [`Verdict::Deferred`],
/// as [`RootVerifier::advance_list`] does.
fn decide_on_pool(
    pool: &ThreadPool,
    members: &mut [CrewMember],
    candidates: &CandidateList,
    items: Items,
    first_pass: bool,
    rules: &Rules,
    each: ThreatBudget,
) -> Round {
    let cursor = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let round = Mutex::new(Round {
        verdicts: Vec::new(),
        claims: 0,
        spent: 0,
    });
    pool.scope(|scope| {
        for member in members.iter_mut() {
            let (cursor, stop, round) = (&cursor, &stop, &round);
            scope.spawn(move |_| {
                let mine = &mut member.checker;
                mine.reset_work();
                let mut verdicts = Vec::new();
                let mut claims = 0;
                while !stop.load(Ordering::Relaxed) {
                    let (claim, index, in_first_pass) = match member.pending.take() {
                        Some((index, in_first_pass)) => (usize::MAX, index, in_first_pass),
                        None => {
                            let claim = cursor.fetch_add(1, Ordering::Relaxed);
                            let Some(index) = items.get(claim) else {
                                break;
                            };
                            claims += 1;
                            (claim, index, first_pass)
                        }
                    };
                    let remaining = |mine: &ThreatChecker| ThreatBudget {
                        work: each.work.saturating_sub(mine.work_spent()),
                        deadline: each.deadline,
                    };
                    let result = candidates.result(index);
                    let verdict = match decide(mine, result, rules, in_first_pass, remaining) {
                        Ok(verdict) => verdict,
                        Err(deferring) => {
                            // Stopped in the full check, it goes on with
                            // it (see `RootVerifier::advance_list`).
                            member.pending = Some((index, in_first_pass && deferring));
                            break;
                        }
                    };
                    verdicts.push((claim, index, verdict));
                    if verdict == Verdict::Safe {
                        stop.store(true, Ordering::Relaxed);
                    }
                }
                let mut round = round.lock().unwrap_or_else(|poison| poison.into_inner());
                round.verdicts.extend(verdicts);
                round.claims += claims;
                round.spent += mine.work_spent();
            });
        }
    });
    let mut round = round
        .into_inner()
        .unwrap_or_else(|poison| poison.into_inner());
    round.verdicts.sort_unstable_by_key(|&(claim, _, _)| claim);
    round
}

/// The budget of the root's check for a search under `limits` whose planned
/// time is `soft`: work in proportion to the node limit, and `share` (the
/// `check_share` tunable, an eighth by default) of the planned time from now, whichever ends first; after an infinite
/// search, a short deadline.
pub(super) fn root_budget(
    limits: &SearchLimits,
    soft: Option<Duration>,
    share: f32,
) -> ThreatBudget {
    let nodes = limits.nodes.filter(|_| !limits.infinite);
    let work = match (nodes, soft) {
        (Some(nodes), _) => nodes.saturating_mul(WORK_PER_NODE),
        (None, Some(_)) => u64::MAX,
        (None, None) => UNLIMITED_SEARCH_WORK,
    };
    // After `stop` ends an infinite search the answer is awaited: its check
    // gets the short deadline of the in-search ones, not a run on work.
    let deadline = match soft {
        Some(soft) => Some(Instant::now() + soft.mul_f32(share)),
        None if limits.infinite => Some(Instant::now() + INFINITE_CHECK_TIME),
        None => None,
    };
    ThreatBudget { work, deadline }
}

/// The budget of the search for the mover's own win in two when it is far
/// ahead ([`ATTACK_FROM`]): [`root_budget`] with [`ATTACK_SHARE`] of the
/// planned time and a quarter of its work.
pub(super) fn attack_budget(limits: &SearchLimits, soft: Option<Duration>) -> ThreatBudget {
    let budget = root_budget(limits, soft, ATTACK_SHARE);
    ThreatBudget {
        work: budget.work / 4,
        ..budget
    }
}

/// The static value (for the side to move, in [-1, 1]) from which the root
/// looks for a forced win in two before searching: far ahead, the tree's
/// leaf values are all high and it can shuffle for a hundred turns (in the
/// 400-game match of 8631315 against e6e26e8 at 100 ms a turn, 13 games
/// ended at the turn limit with the engine at +0.27 to +0.99), while an
/// exact plan ends the game. Measured at 100 ms a turn in self-play
/// against these values (same code otherwise): 0.5 with a share of 0.15
/// lost 26-62-13 (-129.5 ± 68.2 Elo, SPRT [0, 20] rejected at 100 games)
/// on a machine shared with other searches, and scored 48-41-11 (+24.4 ±
/// 65.1) when repeated on a quiet one; 0.1 scored 69-83-26 (about -27 ±
/// 48, 178 games, stopped). No setting measurably differs.
pub(super) const ATTACK_FROM: f32 = 0.3;

/// The share of the planned time that search may take.
const ATTACK_SHARE: f32 = 0.4;

/// How far one advance of the defence search got
/// ([`RootVerifier::advance_list`]).
enum Progress {
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

/// When the in-search verifier starts, as a share of the search: the tree
/// first needs enough visits for its best turn to mean something.
const VERIFY_FROM: f64 = 0.2;

/// The share of the search after which the in-search verifier starts no new
/// check, so that the tree has time to settle on another turn.
const VERIFY_UNTIL: f64 = 0.85;

/// The defence search's time at each visit, as a share of the planned
/// time, at first ([`RootVerifier::seek_defence`]).
const DEFENCE_SLICE: f64 = 0.05;

/// The defence search's time in all, as a share of the planned time: it
/// runs only under a threat, where finding a defence matters more than the
/// tree's finer choice, so it does not shrink with `check_share` (at 100 ms
/// a budget tied to an eighth of the time lost 5 to 9 of the 40 two-turn
/// suite positions). Seven tenths since the tree's best turns that a
/// remembered plan still threatens are left unchecked during the search
/// ([`RootVerifier::check_best`]): those checks then take little of the
/// time, and suite position 72 needs about 60 ms of the search at 100 ms a
/// turn (a half, 50 ms, left it short).
const DEFENCE_SHARE: f64 = 0.7;

/// How long [`RootVerifier::escape`] may look for a turn on the clock.
const ESCAPE_TIME: Duration = Duration::from_millis(2);

/// How long one check in an infinite search may take.
const INFINITE_CHECK_TIME: Duration = Duration::from_millis(50);

/// How many stopped checks [`ThreatChecker`] remembers, to resume them.
const RESUME_POINTS: usize = 16;

/// How many of the most recent stopped checks keep their listing, to go on
/// with it instead of listing the decided turns again: the in-search checks
/// come back to the tree's best turn or two, the defence search to its
/// current candidate.
const KEPT_LISTINGS: usize = 4;

/// Iterations between two looks at the tree's best turn, at least.
const LOOK_INTERVAL: u64 = 256;

/// Checks the tree's best turn for two-turn threats while the search runs,
/// and marks a refuted turn's result as a proven win for the opponent, so
/// that the tree itself turns to the alternatives and spends the rest of
/// its time choosing among them.
///
/// Checking only after the search (as [`RootVerifier::defend`] does) leaves a refuted
/// choice a few milliseconds to find a defence among thousands of turns,
/// and the replacement is then chosen by the leaf evaluation, not by the
/// search. On the clock the checks get the same time [`RootVerifier::defend`] has
/// (`check_share` of the planned time), and the time they take is credited back to
/// the tree ([`RootVerifier::credit`]), so that the tree searches as long
/// as it would without them.
pub(super) struct RootVerifier {
    checker: ThreatChecker,
    /// Turns proven to defend.
    safe: Vec<Vec<Action>>,
    /// Turns proven not to defend (their results are marked in the tree).
    refuted: Vec<Vec<Action>>,
    /// The tree's best turns left unchecked during a defence search, since
    /// a remembered plan still threatens after them (see
    /// [`RootVerifier::check_best`]). The defence search still tries them
    /// as candidates; the final choice treats them as refuted.
    unchecked_best: Vec<Vec<Action>>,
    /// The search's planned time, if it is on the clock.
    soft: Option<Duration>,
    start: Instant,
    /// Time the checks have taken.
    spent: Duration,
    /// Time the checks may take on the clock, credited to the search.
    allowance: Duration,
    /// Set when a check refuted a turn: the position is under a threat, and
    /// finding a defence matters more than the tree's finer choice, so the
    /// checks may then take tree time too (up to [`VERIFY_UNTIL`]).
    threatened: bool,
    /// Set when a check ran out of its share: the next may take tree time
    /// too, up to twice their share of the planned time.
    escalated: bool,
    /// Set when the last check of the tree's best turn ran out while a turn
    /// of the opponent's that threatens a win at once resisted every reply
    /// it tried: mostly a plan that does force the win, which takes longer
    /// to prove than the checks had (every reply listed, tens of
    /// thousands); cleared when a later check of the tree's best decides.
    suspected: bool,
    /// The time a search held for a danger has beyond its planned time
    /// ([`RootVerifier::stretch`]); zero otherwise.
    extra: Duration,
    /// The node limit, if the search has one and no clock.
    nodes: Option<u64>,
    /// Work left for the checks.
    work: u64,
    /// Set when a check ran out of budget: later ones would too.
    exhausted: bool,
    /// Set once the root's turns were listed as candidate defences.
    listed: bool,
    /// The root's turns still to try as defences, best first, with their
    /// results ([`RootVerifier::seek_defence`]).
    candidates: CandidateList,
    /// The next of `candidates` to try.
    next_candidate: usize,
    /// Candidates put aside, as ranks in `candidates`: after them a
    /// known plan of the opponent still threatens.
    deferred: Vec<usize>,
    /// The next of `deferred` to try.
    next_deferred: usize,
    /// Set once `deferred` is in key order, at the end of the first pass.
    deferred_sorted: bool,
    /// The rank of the candidate whose full check ran out of budget last
    /// ([`RootVerifier::advance_list`]).
    unfinished: Option<usize>,
    /// The threads of the defence search on a pool, kept from visit to
    /// visit ([`RootVerifier::advance_on_pool`]).
    crew: Vec<CrewMember>,
    /// The time the defence search takes at a visit, on the clock; doubled
    /// when one turn needs more.
    slice: Option<Duration>,
    /// The time the defence search has taken, at most [`DEFENCE_SHARE`] of
    /// the planned time.
    seek_spent: Duration,
    /// Set when the defence search's time or work is spent. Its lists are
    /// kept: the untried turns are where [`RootVerifier::escape`] looks.
    seek_over: bool,
    /// The end of a movetime: no check runs past it, credit or not.
    cap: Option<Instant>,
    /// The iteration count before which the tree is not looked at again.
    next_look: u64,
}

impl RootVerifier {
    /// A verifier for a search under `limits` planned to take `soft`,
    /// started at `start`, whose checks may take `share` of `soft`.
    pub(super) fn new(
        limits: &SearchLimits,
        soft: Option<Duration>,
        start: Instant,
        share: f32,
    ) -> Self {
        let nodes = limits.nodes.filter(|_| !limits.infinite && soft.is_none());
        // An endless search (`go infinite`) has no work limit: each check
        // has a short deadline and the next visit resumes it.
        let work = match (nodes, soft) {
            (Some(nodes), _) => nodes.saturating_mul(WORK_PER_NODE),
            (None, _) => u64::MAX,
        };
        RootVerifier {
            checker: ThreatChecker::default(),
            safe: Vec::new(),
            refuted: Vec::new(),
            unchecked_best: Vec::new(),
            soft,
            start,
            spent: Duration::ZERO,
            allowance: soft.map_or(Duration::ZERO, |soft| soft.mul_f32(share)),
            threatened: false,
            escalated: false,
            suspected: false,
            extra: Duration::ZERO,
            nodes,
            work,
            exhausted: false,
            listed: false,
            candidates: CandidateList::default(),
            next_candidate: 0,
            deferred: Vec::new(),
            next_deferred: 0,
            deferred_sorted: false,
            unfinished: None,
            crew: Vec::new(),
            slice: None,
            seek_spent: Duration::ZERO,
            seek_over: false,
            next_look: 0,
            cap: limits
                .movetime
                .filter(|_| !limits.infinite)
                .map(|movetime| start + movetime),
        }
    }

    /// Takes over a checker that earlier searches used: its remembered
    /// plans and refutations make this search's checks cheaper.
    pub(super) fn remember(&mut self, checker: ThreatChecker) {
        self.checker = checker;
    }

    /// The checker with what it learned, for the next search.
    pub(super) fn into_memory(self) -> ThreatChecker {
        self.checker
    }

    /// Gives the defence search its candidates from the root's in-check
    /// classification: the turns that do not lose at once, which are the
    /// only possible defences, ordered like [`ThreatChecker::candidates`]
    /// orders its listing. A root in check can have tens of thousands of
    /// turns, and listing them again here took the search's time. With
    /// `None` (in check, but the classification ran out of time) the defence
    /// search is not run at all: its listing would take longer still.
    pub(super) fn in_check(
        &mut self,
        safe: Option<Vec<(Vec<Action>, Position)>>,
        rules: &Rules,
        tunables: &Tunables,
    ) {
        self.listed = true;
        let Some(safe) = safe else {
            self.seek_over = true;
            return;
        };
        let mut solver = Solver::default();
        let mut candidates = CandidateList::default();
        let mut keyed = Vec::with_capacity(safe.len());
        for (index, (actions, result)) in safe.iter().enumerate() {
            candidates.push(actions, result);
            let key = super::static_evaluation_using(result, rules, tunables, &mut solver);
            keyed.push((key, index as u32));
        }
        candidates.order_by(keyed);
        self.candidates = candidates;
    }

    /// The time the checks took, which the search adds to its limits: at
    /// most `check_share` of the planned time.
    pub(super) fn credit(&self) -> Duration {
        self.spent.min(self.allowance)
    }

    /// The budget left for the root's check after the search, on the
    /// clock: what the in-search checks left of their allowance.
    pub(super) fn remaining(&self, budget: ThreatBudget) -> ThreatBudget {
        ThreatBudget {
            work: budget.work,
            deadline: budget.deadline.map(|deadline| {
                let left = self.allowance.saturating_sub(self.spent);
                let deadline = deadline.min(Instant::now() + left);
                self.cap.map_or(deadline, |cap| deadline.min(cap))
            }),
        }
    }

    /// Whether `actions` were proven to defend during the search.
    pub(super) fn proven_safe(&self, actions: &[Action]) -> bool {
        self.safe.iter().any(|safe| safe == actions)
    }

    /// Looks at the tree's best turn, and checks it if it is new; under a
    /// threat with no defence known, goes on looking for one among all the
    /// root's turns. Called by the search's leading thread between
    /// iterations.
    pub(super) fn visit(&mut self, shared: &Shared, crew: Option<&dyn Crew>) {
        let iterations = shared.iterations.load(Ordering::Relaxed);
        if iterations < self.next_look || (self.exhausted && !self.seeking()) {
            return;
        }
        let Some(deadline) = self.deadline(iterations) else {
            return;
        };
        // Reading the best turn can mean completing it outside the tree (a
        // listing of every completion), so the tree is looked at about
        // twenty times over a search, not at every check of the clock.
        self.next_look = iterations + LOOK_INTERVAL.max(iterations / 16);
        if !self.exhausted {
            self.check_best(shared, deadline);
        }
        if self.seeking() {
            // On the clock, the check may have found the threat, which lets
            // the checks take more of the time: the deadline is read again.
            // An infinite search keeps the visit's deadline, which bounds
            // how long `stop` waits.
            let deadline = match self.soft {
                Some(_) => self.deadline(iterations),
                None => Some(deadline),
            };
            if let Some(deadline) = deadline {
                self.seek_defence(shared, deadline, crew);
            }
        }
    }

    /// When the check now starting must give up: `None` when no check
    /// should run now (too early or too late in the search, or the checks'
    /// time is spent), `Some(None)` for a check bounded by work alone.
    fn deadline(&mut self, iterations: u64) -> Option<Option<Instant>> {
        match (self.soft, self.nodes) {
            (Some(soft), _) => {
                let searched = self.start.elapsed().saturating_sub(self.credit());
                let limit = if self.threatened {
                    self.allowance.max(soft.mul_f64(VERIFY_UNTIL))
                } else if self.escalated {
                    self.allowance.max(self.allowance * 2)
                } else {
                    self.allowance
                } + self.extra;
                let left = limit.saturating_sub(self.spent);
                let planned = soft + self.extra;
                if searched < soft.mul_f64(VERIFY_FROM) || searched >= planned.mul_f64(VERIFY_UNTIL)
                {
                    return None;
                }
                if left.is_zero() {
                    self.exhausted = true;
                    self.seek_over = true;
                    return None;
                }
                let deadline = Instant::now() + left;
                Some(Some(self.cap.map_or(deadline, |cap| deadline.min(cap))))
            }
            (None, Some(nodes)) => {
                let done = iterations as f64;
                if done < nodes as f64 * VERIFY_FROM || done >= nodes as f64 * VERIFY_UNTIL {
                    return None;
                }
                Some(None)
            }
            // An infinite search: check from the start, each check on a
            // short deadline, since the leading thread answers `stop` only
            // between checks.
            (None, None) => Some(Some(Instant::now() + INFINITE_CHECK_TIME)),
        }
    }

    /// Checks the tree's best turn, if it is new, and records the verdict.
    ///
    /// While a defence search is on, a best turn after which a remembered
    /// plan still threatens ([`ThreatChecker::still_threatened`], a few
    /// solver calls) is left unchecked instead, as the defence search's
    /// first pass puts such candidates aside. Why: under a threat the tree
    /// proposes one such turn after another, and proving each lost lists
    /// the opponent's plans and every reply to them, 5 to 15 ms a turn in
    /// suite position 72, where the tree's checks took 30 of the first
    /// 100 ms and the defence search ran out before its defence. The turn
    /// is not marked in the tree then, but the final choice treats it as
    /// refuted: [`RootVerifier::safer_choice`] plays a proven defence over
    /// it unchecked, and [`RootVerifier::escape`] plays another turn.
    fn check_best(&mut self, shared: &Shared, deadline: Option<Instant>) {
        let started = Instant::now();
        let tree = shared.tree;
        let best = best_turn(
            tree,
            &shared.rules,
            shared.tunables,
            shared.root,
            &shared.root_position,
        );
        // The reading counts against the allowance too.
        self.spent += started.elapsed();
        let Some(best) = best else {
            return;
        };
        if best.proof != UNPROVEN
            || self.proven_safe(&best.actions)
            || self.ruled_out(&best.actions)
        {
            return;
        }
        self.checker.reset_work();
        let budget = ThreatBudget {
            work: self.work,
            deadline,
        };
        let started = Instant::now();
        if self.leaves_unchecked(&shared.root_position, &best.actions, &shared.rules, budget) {
            self.spent += started.elapsed();
            self.work = self.work.saturating_sub(self.checker.work_spent());
            return;
        }
        let verdict =
            self.checker
                .is_defence(&shared.root_position, &best.actions, &shared.rules, budget);
        self.spent += started.elapsed();
        self.work = self.work.saturating_sub(self.checker.work_spent());
        match verdict {
            Some(true) => {
                self.suspected = false;
                self.safe.push(best.actions);
            }
            Some(false) => {
                self.suspected = false;
                if best.child != 0 {
                    let node = tree.node(best.child);
                    // The result's mover is the opponent, who wins by force.
                    let _ = node.proof.compare_exchange(
                        UNPROVEN,
                        PROVEN_WIN,
                        Ordering::AcqRel,
                        Ordering::Relaxed,
                    );
                }
                self.refuted.push(best.actions);
                self.threatened = true;
            }
            None => {
                self.suspected = self.checker.stopped_in_replies;
                self.ran_out();
            }
        }
    }

    /// Whether `actions` was refuted, or left unchecked as still threatened
    /// ([`RootVerifier::leaves_unchecked`]): the final choice treats both
    /// alike.
    fn ruled_out(&self, actions: &[Action]) -> bool {
        self.refuted
            .iter()
            .chain(&self.unchecked_best)
            .any(|turn| turn == actions)
    }

    /// Whether the tree's best turn `actions` is left unchecked (see
    /// [`RootVerifier::check_best`]): a defence search is on, with no
    /// defence found yet, and a remembered plan still threatens after the
    /// turn. Records the turn when it is.
    fn leaves_unchecked(
        &mut self,
        position: &Position,
        actions: &[Action],
        rules: &Rules,
        budget: ThreatBudget,
    ) -> bool {
        if !self.threatened || !self.safe.is_empty() {
            return false;
        }
        let threatened = result_of(position, actions, rules)
            .and_then(|result| self.checker.still_threatened(&result, rules, budget));
        if threatened == Some(true) {
            self.unchecked_best.push(actions.to_vec());
        }
        threatened == Some(true)
    }

    /// Whether the checks have a danger open: a defence is being sought
    /// (the tree's best turn was refuted and none is known to be safe), or
    /// the last check of the tree's best ran out on a plan of the
    /// opponent's that no reply tried had answered. A clock-managed search
    /// is then held to its hard limit ([`Controller::hold`]).
    ///
    /// [`Controller::hold`]: super::time::Controller::hold
    pub(super) fn danger_open(&self) -> bool {
        self.seeking() || (self.suspected && !self.exhausted)
    }

    /// Takes `hard`, the time a search held for a danger may now take: the
    /// time beyond the planned one goes to the checks and the defence
    /// search, on top of what they had, and a check that runs out is
    /// resumed at the next visit. The tree keeps the time it had: a
    /// version that gave the checks their shares of the whole hard limit
    /// instead lost to the same engine unheld (see the README's safety
    /// section), since a danger that was only suspected then cost the
    /// tree most of its time.
    pub(super) fn stretch(&mut self, hard: Duration) {
        if let Some(soft) = self.soft {
            self.extra = hard.saturating_sub(soft);
        }
    }

    /// What a check of the tree's best turn that ran out of budget means for
    /// the next ones. On a node limit or a clock, it is itself a sign of
    /// danger (a safe turn in a quiet position checks quickly): the next
    /// check may take some tree time, and resumes where this one stopped; a
    /// second one ends them, since the search's time is the tree's. In an
    /// endless search (`go infinite`, analysis) the next visit resumes it,
    /// however often: there the checks have minutes, and a threat that takes
    /// 60 ms to prove was never found when two 50 ms checks ended them. A
    /// search held for a danger ([`RootVerifier::stretch`]) resumes it too,
    /// within its longer limit.
    fn ran_out(&mut self) {
        if (self.soft.is_none() && self.nodes.is_none()) || !self.extra.is_zero() {
            return;
        }
        if !self.escalated && !self.threatened {
            self.escalated = true;
        } else {
            self.exhausted = true;
        }
    }

    /// Whether the search is under a threat with no defence known and
    /// turns left to try.
    fn seeking(&self) -> bool {
        self.threatened
            && self.safe.is_empty()
            && !self.seek_over
            && (!self.listed
                || self.next_candidate < self.candidates.len()
                || self.next_deferred < self.deferred.len())
    }

    /// Looks for a defence among all the root's turns, best first by the
    /// static evaluation, once the tree's best turn was refuted and none is
    /// known to be safe; on the clock a slice of time at each visit, so
    /// that the tree grows in between, and resumed where it stopped.
    ///
    /// Why: under a two-turn threat the tree tends to propose one refuted
    /// turn after another (its values come from the leaf evaluation, which
    /// does not see the plan), each checked only after the tree has moved
    /// on, and in the real games of `positions/tactics/two_turn.txt` it
    /// often ran out of time before proposing a defence, though most had
    /// dozens. With the opponent's winning plans remembered, refuting a
    /// turn mostly takes a fraction of a millisecond, so the list reaches a
    /// defence within milliseconds in most of them. A found defence is
    /// played only if the tree's choice is not proven safe
    /// ([`RootVerifier::safer_choice`]).
    fn seek_defence(
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
    fn list_candidates(
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
    fn order_rest(
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
    fn advance(
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
    fn first_pass_end(&mut self) -> Result<usize, Progress> {
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

    /// The turn to play when the search found the position under threat
    /// and `choice` was not proven to defend: `choice` itself if a check
    /// within `budget` proves it does, else the tree's best turn among
    /// those proven to defend, else the last found. A proven defence beats
    /// an unchecked turn there, since the checks just showed that plausible
    /// turns lose by force. With no defence proven, see
    /// [`RootVerifier::escape`]. `None` when there is nothing to change.
    pub(super) fn safer_choice(
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
    pub(super) fn defend(
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
    /// Why: the in-search checks stop at [`VERIFY_UNTIL`] of the time and
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
    fn escape(
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

/// The position after `turn` from `position`, if it is legal and the game
/// goes on after it.
pub(super) fn result_of(position: &Position, turn: &[Action], rules: &Rules) -> Option<Position> {
    let mut after = *position;
    for &action in turn {
        after.try_apply(rules, action).ok()?;
    }
    (after.end_turn(rules) == Ok(Outcome::Ongoing)).then_some(after)
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
        Ok(Outcome::Ongoing) => Some(-super::evaluate(&after, tunables, false)),
        Ok(Outcome::Win(winner)) if winner == position.side_to_move() => Some(1.0),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notation::hwpn;
    use crate::search::extract::TreeTurn;

    /// SDG game 13748 before turn 57 (suite position 12): the opponent
    /// threatens a two-turn plan.
    const THREATENED: &str =
        "Joe=y1:r3:/ZackStack=r2b3::y2y3g1g3/Belle=b1:r1r3y1:/Ann=b3:r2y1y2g2:\
                              /Gwen=r3::y3g1/Mae=y2::g2/Gina=y3:r2g1g2b2: 0";

    /// [`THREATENED`] and a turn there that loses to the opponent's plan.
    fn threatened_and_lost(rules: &Rules) -> (Position, Vec<Action>) {
        let board = hwpn::parse(THREATENED).unwrap();
        let lost = board
            .clone()
            .play_turn_text(rules, "build.g3.Ann")
            .unwrap()
            .actions;
        (board.position, lost)
    }

    fn tree_turn(position: &Position, actions: &[Action], rules: &Rules) -> TreeTurn {
        TreeTurn {
            actions: actions.to_vec(),
            result: result_of(position, actions, rules).unwrap(),
            child: 0,
            visits: 1,
            value: 0.0,
            proof: UNPROVEN,
        }
    }

    /// The first turn in `position`'s listing after which the game goes on
    /// and that `wanted` accepts, with its result.
    fn first_turn(
        position: &Position,
        rules: &Rules,
        mut wanted: impl FnMut(&[Action], &Position) -> bool,
    ) -> Option<(Vec<Action>, Position)> {
        let mut found = None;
        TurnEnumerator::default().for_each_turn_while(
            position,
            rules,
            None,
            |actions, result, outcome| {
                if outcome == Outcome::Ongoing && wanted(actions, result) {
                    found = Some((actions.to_vec(), *result));
                }
                found.is_none()
            },
        );
        found
    }

    /// A reading of the tree whose best turn is the first of `turns`, each
    /// with one visit.
    fn reading_of(position: &Position, turns: &[&Vec<Action>], rules: &Rules) -> TreeReading {
        TreeReading {
            best: Some(tree_turn(position, turns[0], rules)),
            candidates: turns
                .iter()
                .map(|actions| tree_turn(position, actions, rules))
                .collect(),
        }
    }

    /// The tree's choice of `actions`, as the search makes it.
    fn searched(actions: &[Action]) -> Choice {
        Choice {
            actions: actions.to_vec(),
            value: 0.0,
            decision: Decision::Search,
        }
    }

    #[test]
    fn a_refuted_choice_gives_way_to_the_first_turn_not_proven_lost() {
        let rules = Rules::STANDARD;
        let board = hwpn::parse(THREATENED).unwrap();
        let position = board.position;
        let turn = |text: &str| board.clone().play_turn_text(&rules, text).unwrap().actions;
        let budget = ThreatBudget::work(50_000_000);
        let choice = turn("build.g3.Ann");
        let also_lost = turn("sac.y1.Belle,disc.r2.Gina.b2.Delos");
        let lost_at_once = turn("sac.y1.Belle,move.y1.Ann.Joe");
        let unrefuted = turn("pass");
        let mut checker = ThreatChecker::default();
        for lost in [&choice, &also_lost, &lost_at_once] {
            assert_eq!(
                checker.is_defence(&position, lost, &rules, budget),
                Some(false)
            );
        }
        let after = result_of(&position, &lost_at_once, &rules).unwrap();
        assert!(Solver::default().can_win(&after, &rules));

        let mut verifier =
            RootVerifier::new(&SearchLimits::nodes(1_000), None, Instant::now(), 0.25);
        verifier.threatened = true;
        verifier.refuted = vec![choice.clone(), also_lost.clone()];
        let reading = reading_of(
            &position,
            &[&choice, &also_lost, &lost_at_once, &unrefuted],
            &rules,
        );
        let tree_choice = searched(&choice);
        let escaped = verifier
            .safer_choice(&tree_choice, &reading, &position, &rules, budget)
            .expect("a refuted choice is replaced");
        assert_eq!(escaped.actions, unrefuted);
        assert_eq!(escaped.decision, Decision::UnrefutedTurn);

        // A choice no check refuted stands.
        let unchecked = Choice {
            actions: unrefuted.clone(),
            ..tree_choice
        };
        verifier.refuted = vec![choice];
        assert!(verifier
            .escape(&unchecked, &reading, &position, &rules, budget)
            .is_none());
    }

    #[test]
    fn an_unchecked_choice_after_which_a_known_plan_threatens_gives_way_when_no_time_is_left() {
        let rules = Rules::STANDARD;
        let board = hwpn::parse(THREATENED).unwrap();
        let position = board.position;
        let turn = |text: &str| board.clone().play_turn_text(&rules, text).unwrap().actions;
        let budget = ThreatBudget::work(50_000_000);
        let refuted = turn("build.g3.Ann");
        let mut verifier =
            RootVerifier::new(&SearchLimits::nodes(1_000), None, Instant::now(), 0.25);
        verifier.threatened = true;
        // The check of the refuted turn teaches the checker the plan.
        let checker = &mut verifier.checker;
        assert_eq!(
            checker.is_defence(&position, &refuted, &rules, budget),
            Some(false)
        );
        verifier.refuted = vec![refuted.clone()];
        let checker = &mut verifier.checker;
        let after = |actions: &[Action]| result_of(&position, actions, &rules).unwrap();
        // The first listed turns after which the plan still threatens, and
        // after which it does not (and the opponent cannot win at once).
        let (mut unchecked, mut unthreatened) = (None, None);
        let mut solver = Solver::default();
        TurnEnumerator::default().for_each_turn_while(
            &position,
            &rules,
            None,
            |actions, result, outcome| {
                if outcome == Outcome::Ongoing && actions != refuted.as_slice() {
                    let threatened = checker.still_threatened(result, &rules, budget);
                    if threatened == Some(true) {
                        unchecked.get_or_insert(actions.to_vec());
                    } else if !solver.can_win(result, &rules) {
                        unthreatened.get_or_insert(actions.to_vec());
                    }
                }
                unchecked.is_none() || unthreatened.is_none()
            },
        );
        let unchecked = unchecked.expect("a turn the plan still threatens after");
        let unthreatened = unthreatened.expect("a turn it does not");
        assert_eq!(
            checker.still_threatened(&after(&unthreatened), &rules, budget),
            Some(false)
        );
        let reading = TreeReading {
            best: Some(tree_turn(&position, &unchecked, &rules)),
            candidates: [&unchecked, &refuted, &unthreatened]
                .into_iter()
                .map(|actions| tree_turn(&position, actions, &rules))
                .collect(),
        };
        let choice = Choice {
            actions: unchecked.clone(),
            value: 0.0,
            decision: Decision::Search,
        };
        // With time left, the check after the search decides the choice.
        assert!(verifier
            .escape(&choice, &reading, &position, &rules, budget)
            .is_none());
        let no_time = ThreatBudget {
            work: budget.work,
            deadline: Some(Instant::now()),
        };
        let escaped = verifier
            .escape(&choice, &reading, &position, &rules, no_time)
            .expect("the choice gives way");
        assert_eq!(escaped.actions, unthreatened);
        assert_eq!(escaped.decision, Decision::UnrefutedTurn);
        // A choice after which no known plan threatens stands.
        let quiet = Choice {
            actions: unthreatened.clone(),
            ..choice
        };
        assert!(verifier
            .escape(&quiet, &reading, &position, &rules, no_time)
            .is_none());
    }

    #[test]
    fn checks_that_run_out_of_budget_add_up_to_the_exact_answer() {
        let rules = Rules::STANDARD;
        let (position, lost) = threatened_and_lost(&rules);
        let after = result_of(&position, &lost, &rules).unwrap();
        let mut whole = ThreatChecker::default();
        let exact = whole.forced_win_in_two(&after, &rules, ThreatBudget::work(u64::MAX));
        assert_eq!(exact, Some(true));
        let needed = whole.work_spent();
        // A tenth of the work a check needs: each call runs out, and only
        // the calls together reach the answer.
        let slice = ThreatBudget::work(needed / 10);
        let mut resumed = ThreatChecker::default();
        let mut calls = 1;
        let answer = loop {
            match resumed.forced_win_in_two(&after, &rules, slice) {
                Some(answer) => break answer,
                None => calls += 1,
            }
            assert!(calls <= 100, "no progress from call to call");
        };
        assert_eq!(Some(answer), exact);
        assert!(calls > 1);
        // Without the earlier calls, one slice is not enough.
        let mut fresh = ThreatChecker::default();
        assert_eq!(fresh.forced_win_in_two(&after, &rules, slice), None);
    }

    /// Two-turn suite position 54 after `build.g3.refute`: the opponent's
    /// one threatening turn (about 800 turns down its listing) forces the
    /// win, and proving it lists about 96,000 replies.
    fn plan_slow_to_prove(rules: &Rules) -> Position {
        let board = hwpn::parse(
            "refute=b2:r2r2r2y3g2:/e6e26e8=g2b3::r1y2g1b3/Minsky=b2:y2:/Kotok=g1:r1y1y3b1b1:\
             /Delos=g3::r3y1/Lebling=r1::g1g2b1b2b3/Licklider=r3:r3: 0",
        )
        .unwrap();
        let turn = board
            .clone()
            .play_turn_text(rules, "build.g3.refute")
            .unwrap()
            .actions;
        result_of(&board.position, &turn, rules).unwrap()
    }

    #[test]
    fn a_remembered_refuting_reply_keeps_a_turn_from_being_put_aside() {
        let rules = Rules::STANDARD;
        let (position, lost) = threatened_and_lost(&rules);
        let budget = ThreatBudget::work(50_000_000);
        // Refuting the lost turn teaches the checker a plan, and the
        // replies that refuted the other plans it tried on the way.
        let mut checker = ThreatChecker::default();
        assert_eq!(
            checker.is_defence(&position, &lost, &rules, budget),
            Some(false)
        );
        assert!(!checker.threats.is_empty() && !checker.killers.is_empty());
        let mut forgetful = ThreatChecker {
            threats: checker.threats.clone(),
            ..ThreatChecker::default()
        };
        // A turn after which the plan, replayed, still leaves a pass lost
        // and no win at once, but a remembered reply answers it.
        let answered = first_turn(&position, &rules, |_, result| {
            forgetful.still_threatened(result, &rules, budget) == Some(true)
                && checker.still_threatened(result, &rules, budget) == Some(false)
        });
        let (_, result) = answered.expect("a turn a remembered reply answers");
        // The reply does refute a plan there: after it, no win at once.
        let mut solver = Solver::default();
        let refutes = |planned: &Position, killer: &[Action], solver: &mut Solver| {
            let mut reply = *planned;
            killer
                .iter()
                .all(|&action| reply.try_apply(&rules, action).is_ok())
                && reply.end_turn(&rules) == Ok(Outcome::Ongoing)
                && !solver.can_win(&reply, &rules)
        };
        assert!(checker
            .threats
            .iter()
            .filter_map(|plan| result_of(&result, plan, &rules))
            .any(|planned| {
                let killers = checker.killers.iter();
                killers
                    .clone()
                    .any(|killer| refutes(&planned, killer, &mut solver))
            }));
        // In the first pass of the defence search it is decided, not put
        // aside.
        assert!(matches!(
            decide(&mut checker, &result, &rules, true, |_| budget),
            Ok(Verdict::Safe | Verdict::Refuted)
        ));
    }

    #[test]
    fn the_defence_search_keys_the_turns_with_a_sacrifice_when_it_reaches_them() {
        let rules = Rules::STANDARD;
        let tunables = Tunables::default();
        let (position, _) = threatened_and_lost(&rules);
        let sacrifices = |actions: &[Action]| {
            actions
                .iter()
                .any(|action| matches!(action, Action::Sacrifice { .. }))
        };
        let mut verifier =
            RootVerifier::new(&SearchLimits::nodes(1_000), None, Instant::now(), 0.125);
        verifier.list_candidates(&position, &rules, &tunables, None, None);
        let list = &verifier.candidates;
        let quiet = list.keyed();
        assert!(quiet > 0 && quiet < list.len(), "{quiet} of {}", list.len());
        // The turns without a sacrifice first, by key; the others after
        // them, unkeyed, in listing order.
        assert!((0..quiet).all(|rank| !sacrifices(list.actions(rank))));
        assert!((1..quiet).all(|rank| list.key(rank - 1) <= list.key(rank)));
        assert!((quiet..list.len()).all(|rank| sacrifices(list.actions(rank))));
        assert!((quiet..list.len()).all(|rank| list.key(rank) == UNKEYED));
        assert!((quiet + 1..list.len()).all(|rank| list.order[rank - 1] < list.order[rank]));
        let listed: Vec<u32> = list.order[quiet..].to_vec();
        // The first pass stops where the keys end, and the search keys the
        // rest before it goes on.
        verifier.next_candidate = quiet;
        assert!(matches!(verifier.first_pass_end(), Err(Progress::Unkeyed)));
        verifier.order_rest(&rules, &tunables, None, None);
        let list = &verifier.candidates;
        assert_eq!(list.keyed(), list.len());
        assert!((quiet + 1..list.len()).all(|rank| list.key(rank - 1) <= list.key(rank)));
        let mut keyed: Vec<u32> = list.order[quiet..].to_vec();
        keyed.sort_unstable();
        assert_eq!(keyed, listed, "the same turns, reordered");
        let all = list.len();
        assert_eq!(verifier.first_pass_end().ok(), Some(all));
    }

    #[test]
    fn a_check_that_runs_out_among_the_replies_to_a_threat_says_so() {
        let rules = Rules::STANDARD;
        let after = plan_slow_to_prove(&rules);
        let mut checker = ThreatChecker::default();
        let budget = ThreatBudget::work(50_000_000);
        assert_eq!(
            checker.forced_win_in_two(&after, &rules, budget),
            Some(true)
        );
        assert!(!checker.stopped_in_replies);
        let needed = checker.work_spent();
        // Most of the work is the proof: half of it stops among the replies.
        let mut checker = ThreatChecker::default();
        let half = ThreatBudget::work(needed / 2);
        assert_eq!(checker.forced_win_in_two(&after, &rules, half), None);
        assert!(checker.stopped_in_replies);
        // A budget spent before the threatening turn is listed does not.
        let mut checker = ThreatChecker::default();
        let tiny = ThreatBudget::work(100);
        assert_eq!(checker.forced_win_in_two(&after, &rules, tiny), None);
        assert!(!checker.stopped_in_replies);
    }

    #[test]
    fn a_check_stopped_by_its_deadline_goes_on_with_its_listing() {
        let rules = Rules::STANDARD;
        let (position, lost) = threatened_and_lost(&rules);
        let after = result_of(&position, &lost, &rules).unwrap();
        let exact = ThreatChecker::default().forced_win_in_two(
            &after,
            &rules,
            ThreatBudget::work(u64::MAX),
        );
        let mut resumed = ThreatChecker::default();
        let (mut stops, mut kept) = (0, 0);
        let answer = loop {
            let slice = ThreatBudget {
                work: u64::MAX,
                deadline: Some(Instant::now() + Duration::from_micros(200)),
            };
            if let Some(answer) = resumed.forced_win_in_two(&after, &rules, slice) {
                break answer;
            }
            stops += 1;
            // The stopped listing is kept, not only a count of its turns.
            if let Some(point) = resumed.resume_turns.first() {
                assert!(point.position == after && point.listing.is_some());
                kept += 1;
            }
            assert!(stops < 100_000, "no progress from call to call");
        };
        assert_eq!(Some(answer), exact);
        assert!(
            kept > 0,
            "no check stopped: the slices are too long to test this"
        );
    }

    #[test]
    fn in_check_the_defence_search_tries_the_classified_turns_best_first() {
        let rules = Rules::STANDARD;
        let tunables = Tunables::default();
        let board = hwpn::parse(THREATENED).unwrap();
        let position = board.position;
        let turns: Vec<(Vec<Action>, Position)> =
            ["pass", "build.g3.Ann", "sac.y1.Belle,disc.r2.Gina.b2.Delos"]
                .into_iter()
                .map(|text| {
                    let actions = board.clone().play_turn_text(&rules, text).unwrap().actions;
                    let result = result_of(&position, &actions, &rules).unwrap();
                    (actions, result)
                })
                .collect();
        let limits = SearchLimits::nodes(1_000);
        let mut verifier = RootVerifier::new(&limits, None, Instant::now(), 0.125);
        verifier.in_check(Some(turns.clone()), &rules, &tunables);
        assert!(!verifier.seek_over);
        let keys: Vec<f32> = verifier
            .candidates
            .iter()
            .map(|(_, result)| super::super::static_evaluation_with(result, &rules, &tunables))
            .collect();
        assert!(keys.windows(2).all(|pair| pair[0] <= pair[1]), "{keys:?}");
        let mut listed: Vec<u64> = verifier.candidates.iter().map(|(_, r)| r.hash()).collect();
        let mut given: Vec<u64> = turns.iter().map(|(_, result)| result.hash()).collect();
        listed.sort_unstable();
        given.sort_unstable();
        assert_eq!(listed, given);

        // Without a classification the root's turns are not listed again.
        let mut unlisted = RootVerifier::new(&limits, None, Instant::now(), 0.125);
        unlisted.in_check(None, &rules, &tunables);
        assert!(unlisted.seek_over && unlisted.candidates.is_empty());
    }

    #[test]
    fn checks_that_run_out_end_on_the_clock_but_not_in_an_endless_search() {
        let start = Instant::now();
        let timed = SearchLimits::movetime(Duration::from_millis(100));
        let mut clocked = RootVerifier::new(&timed, Some(Duration::from_millis(100)), start, 0.125);
        clocked.ran_out();
        assert!(clocked.escalated && !clocked.exhausted);
        clocked.ran_out();
        assert!(clocked.exhausted);
        let mut limited = RootVerifier::new(&SearchLimits::nodes(1_000), None, start, 0.125);
        limited.ran_out();
        limited.ran_out();
        assert!(limited.exhausted);
        let endless = SearchLimits {
            infinite: true,
            ..SearchLimits::default()
        };
        let mut analysis = RootVerifier::new(&endless, None, start, 0.125);
        for _ in 0..10 {
            analysis.ran_out();
        }
        assert!(!analysis.exhausted);
        assert_eq!(analysis.work, u64::MAX);
    }

    #[test]
    fn the_candidate_list_gives_each_turn_with_its_own_result_in_key_order() {
        let rules = Rules::STANDARD;
        let (position, _) = threatened_and_lost(&rules);
        let mut turns = Vec::new();
        TurnEnumerator::default().for_each_turn(&position, &rules, |actions, result, outcome| {
            if outcome == Outcome::Ongoing {
                turns.push((actions.to_vec(), *result));
            }
        });
        // Turns of different lengths share one buffer of actions.
        assert!(turns.iter().any(|(actions, _)| actions.len() == 1));
        assert!(turns.iter().any(|(actions, _)| actions.len() > 2));
        let mut list = CandidateList::default();
        for (actions, result) in &turns {
            list.push(actions, result);
        }
        assert_eq!(list.len(), turns.len());
        for (rank, (actions, result)) in turns.iter().enumerate() {
            assert_eq!(list.actions(rank), actions.as_slice());
            assert_eq!(list.result(rank).hash(), result.hash());
        }
        // Keys that reverse the listing, with a tie kept in listing order.
        let count = turns.len() as u32;
        let keyed = (0..count)
            .map(|index| {
                (
                    if index < 2 {
                        0.0
                    } else {
                        (count - index) as f32
                    },
                    index,
                )
            })
            .collect();
        list.order_by(keyed);
        let expected: Vec<usize> = [0, 1].into_iter().chain((2..turns.len()).rev()).collect();
        for (rank, &index) in expected.iter().enumerate() {
            assert_eq!(list.actions(rank), turns[index].0.as_slice());
            assert_eq!(list.result(rank).hash(), turns[index].1.hash());
        }
        let tail: Vec<&[Action]> = list.iter_from(3).map(|(actions, _)| actions).collect();
        let expected_tail: Vec<&[Action]> = expected[3..]
            .iter()
            .map(|&index| turns[index].0.as_slice())
            .collect();
        assert_eq!(tail, expected_tail);
        assert_eq!(list.iter_from(list.len() + 5).count(), 0);
    }

    #[test]
    fn keys_cut_short_by_the_deadline_leave_the_rest_of_the_list_in_listing_order() {
        let rules = Rules::STANDARD;
        let tunables = Tunables::default();
        let (position, _) = threatened_and_lost(&rules);
        let past = Some(Instant::now());
        let mut checker = ThreatChecker::default();
        let keyed = |results: &[&Position], deadline| {
            keys_in_turn(results, deadline, |result| {
                crate::search::static_evaluation_using(
                    result,
                    &rules,
                    &tunables,
                    &mut Solver::default(),
                )
            })
        };
        let full = checker
            .candidates(&position, &rules, None, false, keyed)
            .unwrap();
        let cut = checker
            .candidates(&position, &rules, past, false, keyed)
            .unwrap();
        assert_eq!(cut.found, full.found);
        assert_eq!(cut.turns.len(), full.turns.len(), "no candidate is lost");
        // Nothing keyed: every ongoing turn in the order the listing gave.
        let mut listed = Vec::new();
        TurnEnumerator::default().for_each_turn(&position, &rules, |actions, _, outcome| {
            if outcome == Outcome::Ongoing {
                listed.push(actions.to_vec());
            }
        });
        let cut_actions: Vec<_> = cut
            .turns
            .iter()
            .map(|(actions, _)| actions.to_vec())
            .collect();
        assert_eq!(cut_actions, listed);
        assert_ne!(
            full.turns
                .iter()
                .map(|(actions, _)| actions)
                .collect::<Vec<_>>(),
            listed.iter().map(Vec::as_slice).collect::<Vec<_>>(),
            "the full keys reorder the list"
        );
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        let results: Vec<&Position> = full.turns.iter().map(|(_, result)| result).collect();
        let late = keys_on_pool(&pool, &results, past, &rules, &tunables);
        assert!(late.iter().all(|&key| key == UNKEYED) && late.len() == results.len());
        let timely = keys_on_pool(&pool, &results, None, &rules, &tunables);
        assert!(timely.iter().all(|&key| key.is_finite()));
    }

    #[test]
    fn a_crew_member_keeps_one_stopped_listing() {
        let rules = Rules::STANDARD;
        let (position, _) = threatened_and_lost(&rules);
        let mut lister = ThreatChecker::default();
        let turns = lister.candidates(&position, &rules, None, false, |results, _| {
            vec![0.0; results.len()]
        });
        let results: Vec<Position> = turns
            .unwrap()
            .turns
            .iter()
            .map(|(_, result)| *result)
            .collect();
        // Checks of several positions, each stopped early, as a defence
        // search's slices leave them.
        let kept = |checker: &mut ThreatChecker| {
            for result in results.iter().take(40) {
                checker.reset_work();
                let _ = checker.forced_win_in_two(result, &rules, ThreatBudget::work(300));
            }
            let stops = [&checker.resume_turns, &checker.resume_replies];
            stops
                .iter()
                .map(|stops| stops.iter().filter(|stop| stop.listing.is_some()).count())
                .max()
                .unwrap()
        };
        let member = kept(&mut ThreatChecker::default().seeded());
        let alone = kept(&mut ThreatChecker::default());
        assert_eq!(member, 1);
        assert_eq!(alone, KEPT_LISTINGS);
    }

    #[test]
    fn the_defence_search_on_a_pool_goes_on_across_slices_to_a_proven_defence() {
        let rules = Rules::STANDARD;
        let tunables = Tunables::default();
        let (position, lost) = threatened_and_lost(&rules);
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(3)
            .build()
            .unwrap();
        let limits = SearchLimits::nodes(1_000);
        let mut verifier = RootVerifier::new(&limits, None, Instant::now(), 0.125);
        // The tree's choice is refuted first: the plan it learns is what
        // the first pass defers by.
        let refuted =
            verifier
                .checker
                .is_defence(&position, &lost, &rules, ThreatBudget::work(u64::MAX));
        assert_eq!(refuted, Some(false));
        verifier.list_candidates(&position, &rules, &tunables, None, Some(&pool));
        let listed = verifier.candidates.len();
        assert!(listed > 100, "{listed} candidates");
        // Slices too small for most candidates: each member goes on with the
        // one it stopped at, so the slices add up to a defence.
        let mut slices = 0;
        loop {
            verifier.checker.reset_work();
            match verifier.advance(&rules, &tunables, 3_000, (None, None), Some(&pool)) {
                Progress::Found => break,
                Progress::Exhausted => panic!("no defence found"),
                Progress::Stopped { .. } => slices += 1,
                Progress::Unkeyed => panic!("the candidates are keyed as the search reaches them"),
            }
            assert!(slices < 10_000, "no progress");
        }
        assert!(slices > 0, "the slices were not small");
        assert_eq!(verifier.crew.len(), 3);

        let found = &verifier.safe[0];
        let mut exact = ThreatChecker::default();
        let budget = ThreatBudget::work(50_000_000);
        assert_eq!(
            exact.is_defence(&position, found, &rules, budget),
            Some(true)
        );
        // Every turn it refuted on the way is lost indeed.
        for turn in verifier.refuted.iter().take(20) {
            assert_eq!(
                exact.is_defence(&position, turn, &rules, budget),
                Some(false)
            );
        }
    }

    #[test]
    fn during_the_defence_search_a_best_turn_a_known_plan_still_threatens_is_left_unchecked() {
        let rules = Rules::STANDARD;
        let tunables = Tunables::default();
        let board = hwpn::parse(THREATENED).unwrap();
        let position = board.position;
        let turn = |text: &str| board.clone().play_turn_text(&rules, text).unwrap().actions;
        let lost = turn("build.g3.Ann");
        let budget = ThreatBudget::work(50_000_000);
        let mut verifier =
            RootVerifier::new(&SearchLimits::nodes(1_000), None, Instant::now(), 0.125);
        // With no threat known, every best turn is checked.
        assert!(!verifier.leaves_unchecked(&position, &lost, &rules, budget));
        // The tree's best turn refuted: the checker knows the opponent's
        // plan, and the defence search is on.
        assert_eq!(
            verifier
                .checker
                .is_defence(&position, &lost, &rules, budget),
            Some(false)
        );
        verifier.threatened = true;
        // The first other turn after which the plan still threatens.
        let (also_lost, _) = first_turn(&position, &rules, |actions, result| {
            actions != lost.as_slice()
                && verifier.checker.still_threatened(result, &rules, budget) == Some(true)
        })
        .expect("a turn the plan still threatens after");
        verifier.refuted.push(lost);
        assert!(verifier.leaves_unchecked(&position, &also_lost, &rules, budget));
        assert_eq!(verifier.unchecked_best, std::slice::from_ref(&also_lost));
        // Rightly so: a full check refutes it too.
        assert_eq!(
            ThreatChecker::default().is_defence(&position, &also_lost, &rules, budget),
            Some(false)
        );
        // Chosen with no defence known, it gives way as a refuted choice
        // does, to a turn no check refuted.
        let unrefuted = turn("pass");
        let reading = reading_of(&position, &[&also_lost, &unrefuted], &rules);
        let choice = searched(&also_lost);
        let escaped = verifier
            .safer_choice(&choice, &reading, &position, &rules, budget)
            .expect("the unchecked choice is replaced");
        assert_eq!(escaped.actions, unrefuted);
        assert_eq!(escaped.decision, Decision::UnrefutedTurn);

        // Once the defence search has found a defence, the tree's best
        // turns are checked in full again.
        verifier.list_candidates(&position, &rules, &tunables, None, None);
        assert!(matches!(
            verifier.advance(&rules, &tunables, u64::MAX, (None, None), None),
            Progress::Found
        ));
        let defence = verifier.safe[0].clone();
        assert!(!verifier.leaves_unchecked(&position, &also_lost, &rules, budget));
        assert_eq!(verifier.unchecked_best.len(), 1);

        // The unchecked choice gives way to the defence, still unchecked.
        let reading = reading_of(&position, &[&also_lost, &defence], &rules);
        verifier.checker.reset_work();
        let safer = verifier
            .safer_choice(&choice, &reading, &position, &rules, budget)
            .expect("the proven defence instead");
        assert_eq!(safer.actions, defence);
        assert_eq!(safer.decision, Decision::TwoTurnDefence);
        assert_eq!(verifier.checker.work_spent(), 0, "no check of the choice");
    }

    #[test]
    fn the_check_after_the_search_resumes_the_defence_search() {
        let rules = Rules::STANDARD;
        let tunables = Tunables::default();
        let (position, lost) = threatened_and_lost(&rules);
        let reading = TreeReading {
            best: Some(tree_turn(&position, &lost, &rules)),
            candidates: vec![tree_turn(&position, &lost, &rules)],
        };
        let limits = SearchLimits::nodes(1_000);
        let verifier = || RootVerifier::new(&limits, None, Instant::now(), 0.125);
        // The whole defence search, uninterrupted: its work to the first
        // defence.
        let mut whole = verifier();
        whole.list_candidates(&position, &rules, &tunables, None, None);
        assert!(matches!(
            whole.advance(&rules, &tunables, u64::MAX, (None, None), None),
            Progress::Found
        ));
        let total = whole.checker.work_spent();

        // Stopped during the search at three quarters of that, then given
        // half of it after the search: the two add up to a defence.
        let mut resumed = verifier();
        resumed.list_candidates(&position, &rules, &tunables, None, None);
        assert!(matches!(
            resumed.advance(&rules, &tunables, total * 3 / 4, (None, None), None),
            Progress::Stopped { .. }
        ));
        let after_search = ThreatBudget::work(total / 2);
        let defend = |verifier: &mut RootVerifier| {
            let choice = Choice {
                actions: lost.clone(),
                value: 0.0,
                decision: Decision::Search,
            };
            verifier.defend(
                choice,
                &reading,
                &position,
                &rules,
                &tunables,
                after_search,
                None,
            )
        };
        let defended = defend(&mut resumed);
        assert_eq!(defended.decision, Decision::TwoTurnDefence);
        let mut exact = ThreatChecker::default();
        let budget = ThreatBudget::work(50_000_000);
        assert_eq!(
            exact.is_defence(&position, &defended.actions, &rules, budget),
            Some(true)
        );

        // With only the after-search half, a search started afresh does
        // not reach it: the choice, proven lost, gives way to a turn that
        // no check refuted.
        let mut fresh = verifier();
        let escaped = defend(&mut fresh);
        assert_eq!(escaped.decision, Decision::UnrefutedTurn);
        assert_ne!(escaped.actions, lost);
        assert!(fresh.refuted.contains(&lost));
    }

    #[test]
    fn an_undecided_choice_gives_way_to_a_proven_defence_the_tree_visited_more() {
        let rules = Rules::STANDARD;
        let tunables = Tunables::default();
        let (position, lost) = threatened_and_lost(&rules);
        let limits = SearchLimits::nodes(1_000);
        let mut verifier = RootVerifier::new(&limits, None, Instant::now(), 0.125);
        verifier.list_candidates(&position, &rules, &tunables, None, None);
        assert!(matches!(
            verifier.advance(&rules, &tunables, u64::MAX, (None, None), None),
            Progress::Found
        ));
        let defence = verifier.safe[0].clone();
        // The choice itself was never checked, and the check after the
        // search has no work to decide it.
        verifier.refuted.clear();
        let undecided = ThreatBudget::work(1);
        let choice = || Choice {
            actions: lost.clone(),
            value: 0.5,
            decision: Decision::Search,
        };
        let mut play_with = |defence_visits: u64| {
            let reading = TreeReading {
                best: Some(tree_turn(&position, &lost, &rules)),
                candidates: vec![
                    TreeTurn {
                        visits: 100,
                        ..tree_turn(&position, &lost, &rules)
                    },
                    TreeTurn {
                        visits: defence_visits,
                        value: -0.5,
                        ..tree_turn(&position, &defence, &rules)
                    },
                ],
            };
            verifier.defend(
                choice(),
                &reading,
                &position,
                &rules,
                &tunables,
                undecided,
                None,
            )
        };
        let played = play_with(101);
        assert_eq!(played.actions, defence);
        assert_eq!(played.decision, Decision::Search);
        assert_eq!(played.value, -0.5);
        // Visited less, the proven defence does not replace it.
        let kept = play_with(99);
        assert_eq!(kept.actions, lost);
    }
}
