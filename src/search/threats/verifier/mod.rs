//! The root verifier: the two-turn checks tied to one search, during it
//! and after it.
//!
//! The checker needs no tree; this is where it meets one. A
//! [`RootVerifier`] lives for one search: the search's leading thread
//! calls [`RootVerifier::visit`] between iterations, and the searcher asks
//! it for the final word on the turn chosen ([`RootVerifier::defend`],
//! [`RootVerifier::safer_choice`], in the `choice` submodule).
//!
//! # Why the checks run during the search
//! Checked only after the search, a refuted choice leaves a few
//! milliseconds to find a defence among thousands of turns, and the
//! replacement is chosen by the leaf evaluation, not by the search. So the
//! verifier reads the tree's best turn now and then and checks it; a turn
//! it refutes has its result marked in the tree as a proven win for the
//! opponent, and the tree itself turns to the alternatives and spends the
//! rest of its time choosing among them.
//!
//! # When, and for how long
//! - From [`VERIFY_FROM`] (a fifth) of the search, when the tree's best
//!   turn has visits enough to mean something, to [`VERIFY_UNTIL`], after
//!   which no new check starts, so that the tree has time to settle on
//!   another turn. Starting earlier finds no more threats.
//! - The tree is looked at every [`LOOK_INTERVAL`] iterations or a
//!   sixteenth of those done, about twenty times a search: reading the
//!   best turn can mean completing it outside the tree.
//! - On the clock the checks get `check_share` of the planned time, and
//!   what they take is credited back to the search
//!   ([`RootVerifier::credit`]), so that the tree searches as long as it
//!   would without them; a `movetime` caps everything, credit or not.
//!   Under a node limit they get work in proportion to the nodes, which
//!   keeps node-limited play deterministic.
//! - With several threads these checks still run on the leading thread
//!   alone, with the same share, while the helpers grow the tree: the
//!   leading thread's time is worth more to the tree than to more checking
//!   of its best turn. Only the defence search uses every thread.
//!
//! # When a check runs out
//! A safe turn in a quiet position checks quickly, so a check that runs
//! out is itself a sign of danger ([`RootVerifier::ran_out`]): the next one
//! may take tree time too, up to twice the share, and resumes where this
//! one stopped; a second that runs out ends the checks, since the search's
//! time is the tree's. Letting them take more (half the planned time)
//! costs the tree more than it wins.
//!
//! An endless search (`go infinite`, analysis) has no work limit: each
//! check has a short deadline, since the leading thread answers `stop`
//! only between checks, and the next look resumes it however often it ran
//! out, so a threat that takes longer than one check to prove is still
//! found in the end.
//!
//! On a clock (not a `movetime`, not a node limit) a danger holds the
//! search to its hard limit ([`RootVerifier::danger_open`],
//! `Controller::hold` in the time manager): while a defence is sought
//! after a proven threat, or while the last check of the tree's best ran
//! out among the replies to an opponent's turn that threatens a win at
//! once and that no reply tried had answered (mostly a real plan, slow to
//! prove). The time beyond the planned one goes to the checks and the
//! defence search ([`RootVerifier::stretch`]); the tree keeps the time it
//! had, so that a suspicion that comes to nothing costs the tree nothing.
//! Once the check decides, the usual limits apply again.
//!
//! # Under a threat
//! Once a check has refuted the tree's best turn the position is under a
//! threat, and finding a defence matters more than the tree's finer
//! choice: the checks may take tree time up to [`VERIFY_UNTIL`], and the
//! defence search (the `defence_search` submodule) goes through all the
//! root's turns. The tree meanwhile tends to propose one refuted turn
//! after another, since its leaf evaluation does not see the plan: while
//! the defence search is on, a best turn after which a remembered plan
//! still threatens is left unchecked ([`RootVerifier::check_best`]) and
//! treated as refuted by the final choice.
//!
//! In check (the opponent wins at once after a pass) the root classifies
//! its turns before the tree starts, and the tree searches only those not
//! lost at once; the defence search takes its candidates from that
//! classification ([`RootVerifier::in_check`]) rather than list them again.

mod choice;
mod defence_search;
#[cfg(test)]
mod tests;

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use super::budget::{ThreatBudget, INFINITE_CHECK_TIME, WORK_PER_NODE};
use super::candidates::CandidateList;
use super::checker::ThreatChecker;
use super::crew::{Crew, CrewMember};
use super::result_of;
use crate::rules::{Action, Position, Rules};
use crate::search::extract::best_turn;
use crate::search::mcts::Shared;
use crate::search::options::SearchLimits;
use crate::search::solver::Solver;
use crate::search::tree::{PROVEN_WIN, UNPROVEN};
use crate::search::tunables::Tunables;

/// When the in-search verifier starts, as a share of the search: the tree
/// first needs enough visits for its best turn to mean something.
const VERIFY_FROM: f64 = 0.2;

/// The share of the search after which the in-search verifier starts no new
/// check, so that the tree has time to settle on another turn.
const VERIFY_UNTIL: f64 = 0.85;

/// Iterations between two looks at the tree's best turn, at least.
const LOOK_INTERVAL: u64 = 256;

/// Checks the tree's best turn for two-turn threats while the search runs,
/// and marks a refuted turn's result as a proven win for the opponent, so
/// that the tree itself turns to the alternatives and spends the rest of
/// its time choosing among them.
///
/// Checking only after the search (as [`RootVerifier::defend`] does)
/// leaves a refuted choice a few milliseconds to find a defence among
/// thousands of turns, and the replacement is then chosen by the leaf
/// evaluation, not by the search. On the clock the checks get the same
/// time [`RootVerifier::defend`] has (`check_share` of the planned time),
/// and the time they take is credited back to the tree
/// ([`RootVerifier::credit`]), so that the tree searches as long as it
/// would without them.
pub(in crate::search) struct RootVerifier {
    /// The checker of every check of this search, kept by the searcher from
    /// turn to turn for what it remembers.
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
    /// When the search started: the in-search checks run in a window of
    /// its time.
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
    /// The time the defence search has taken, at most
    /// [`DEFENCE_SHARE`](defence_search::DEFENCE_SHARE) of the planned time.
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
    pub(in crate::search) fn new(
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
    pub(in crate::search) fn remember(&mut self, checker: ThreatChecker) {
        self.checker = checker;
    }

    /// The checker with what it learned, for the next search.
    pub(in crate::search) fn into_memory(self) -> ThreatChecker {
        self.checker
    }

    /// Gives the defence search its candidates from the root's in-check
    /// classification: the turns that do not lose at once, which are the
    /// only possible defences, ordered like [`ThreatChecker::candidates`]
    /// orders its listing. A root in check can have tens of thousands of
    /// turns, and listing them again here took the search's time. With
    /// `None` (in check, but the classification ran out of time) the defence
    /// search is not run at all: its listing would take longer still.
    pub(in crate::search) fn in_check(
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
            let key = crate::search::static_evaluation_using(result, rules, tunables, &mut solver);
            keyed.push((key, index as u32));
        }
        candidates.order_by(keyed);
        self.candidates = candidates;
    }

    /// The time the checks took, which the search adds to its limits: at
    /// most `check_share` of the planned time.
    pub(in crate::search) fn credit(&self) -> Duration {
        self.spent.min(self.allowance)
    }

    /// The budget left for the root's check after the search, on the
    /// clock: what the in-search checks left of their allowance.
    pub(in crate::search) fn remaining(&self, budget: ThreatBudget) -> ThreatBudget {
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
    pub(in crate::search) fn proven_safe(&self, actions: &[Action]) -> bool {
        self.safe.iter().any(|safe| safe == actions)
    }

    /// Looks at the tree's best turn, and checks it if it is new; under a
    /// threat with no defence known, goes on looking for one among all the
    /// root's turns. Called by the search's leading thread between
    /// iterations.
    pub(in crate::search) fn visit(&mut self, shared: &Shared, crew: Option<&dyn Crew>) {
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
    /// the hardest positions, time the defence search needs more. The turn
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
            shared.repeats(),
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
    /// [`Controller::hold`]: crate::search::time::Controller::hold
    pub(in crate::search) fn danger_open(&self) -> bool {
        self.seeking() || (self.suspected && !self.exhausted)
    }

    /// Takes `hard`, the time a search held for a danger may now take: the
    /// time beyond the planned one goes to the checks and the defence
    /// search, on top of what they had, and a check that runs out is
    /// resumed at the next visit. The tree keeps the time it had, rather
    /// than the checks taking their shares of the whole hard limit: a
    /// danger only suspected would then cost the tree most of its time,
    /// and a suspicion mostly comes to nothing.
    pub(in crate::search) fn stretch(&mut self, hard: Duration) {
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
    /// however often: there the checks have minutes, and a threat that
    /// takes longer to prove than two checks have would otherwise never be
    /// found. A
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
}
