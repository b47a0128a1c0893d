//! Deciding candidate defences, one at a time or on every thread.
//!
//! [`decide`] is one step of the defence search: one candidate, decided in
//! full or, in the first pass, put aside ([`Verdict::Deferred`]) when a
//! remembered plan still threatens after it. Most such turns are lost to
//! that plan, and proving so lists every reply to it, so the first pass
//! tries the others first and the second pass comes back to them.
//!
//! With more than one search thread the defence search runs on all of
//! them ([`decide_on_pool`]): the search's helpers wait while it runs (the
//! [`Crew`] the search provides stops them and lends their threads), and
//! each thread is a [`CrewMember`] that claims the next undecided
//! candidate. The candidates are decided independently, so the list goes
//! through about as many times faster as there are threads. What each
//! member keeps is what makes slices of time add up:
//! - its own checker, started from the verifier's remembered plans and
//!   refutations, and given the front ones the others learned at each
//!   round;
//! - the candidate it stopped at, which it goes on with at the next round
//!   before claiming a new one, with its resume points, so that a
//!   candidate needing more than one slice is finished by the checker that
//!   started it instead of being started afresh, which would lose every
//!   decision longer than a slice.
//!
//! On a pool the defence found is the first to be proven, not necessarily
//! the first in the list, and which it is can vary from run to run; any
//! proven defence will do, since the tree's preference among those proven
//! decides what is played. With one thread the search stays in order and
//! deterministic.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;

use rayon::ThreadPool;

use super::budget::ThreatBudget;
use super::candidates::CandidateList;
use super::checker::ThreatChecker;
use crate::rules::{Position, Rules};

/// Runs work on all of a search's threads while its tree waits: how the
/// root's defence search uses more than one thread
/// ([`RootVerifier::visit`](super::RootVerifier::visit)).
pub(in crate::search) trait Crew {
    /// Runs `work` with the search's helpers stopped, giving it a pool of as
    /// many threads as the search has.
    fn run(&self, work: &mut dyn FnMut(&ThreadPool));
}

/// What deciding one candidate defence found ([`decide_on_pool`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Verdict {
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
pub(super) fn decide(
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
pub(super) enum Items<'a> {
    /// The candidates of ranks `start..end`, in order: the first pass.
    Range(usize, usize),
    /// These ranks, in order: the deferred, in the second pass.
    List(&'a [usize]),
}

impl Items<'_> {
    /// The candidate index of claim `claim`, if there is one.
    pub(super) fn get(self, claim: usize) -> Option<usize> {
        match self {
            Items::Range(start, end) => (claim < end - start).then_some(start + claim),
            Items::List(list) => list.get(claim).copied(),
        }
    }

    /// Whether there is nothing to claim.
    pub(super) fn is_empty(self) -> bool {
        self.get(0).is_none()
    }
}

/// One thread's share of the defence search on a pool: its checker, whose
/// resume points let a candidate that needs longer than a slice go on
/// where it stopped, and that candidate (its index, and whether it is in
/// the first pass).
pub(super) struct CrewMember {
    /// The member's own checker, a seeded copy of the verifier's.
    pub(super) checker: ThreatChecker,
    /// The candidate it stopped at, to go on with first: its rank, and
    /// whether it is still in the first pass.
    pub(super) pending: Option<(usize, bool)>,
}

/// One round of [`decide_on_pool`].
pub(super) struct Round {
    /// (claim order, candidate index, verdict) of every candidate decided;
    /// a candidate a member went on with has no claim (`usize::MAX`).
    pub(super) verdicts: Vec<(usize, usize, Verdict)>,
    /// How many new items were claimed.
    pub(super) claims: usize,
    /// Work spent by all the members.
    pub(super) spent: u64,
}

/// Decides candidates on every thread of `pool`, one [`CrewMember`] each:
/// a member first goes on with the candidate it stopped at last round,
/// then claims the next of `candidates[items[..]]`, until one defends, the
/// items end, or its budget runs out (`each`: its own share of work; the
/// deadline is common). In the first pass a candidate after which a
/// remembered plan still threatens is only marked [`Verdict::Deferred`],
/// as the search on one thread does.
pub(super) fn decide_on_pool(
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
                            // it, as the search on one thread does.
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
