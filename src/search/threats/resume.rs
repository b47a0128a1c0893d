//! Listings that stop and go on: how checks that run out add up.
//!
//! On the clock a check often needs longer than one deadline allows: a
//! proof lists tens of thousands of replies, and the in-search checks get
//! a few milliseconds at a time. Started afresh each time, such a check
//! would never finish; so a check that runs out leaves a [`ResumePoint`]:
//! the position it was listing the turns of (the same systems in the same
//! slots, since the listing's order follows the slots, under the same
//! rules), how many of the listed turns it had decided, and, for the most
//! recent few ([`KEPT_LISTINGS`]), the stopped listing itself with the
//! turn whose test ran out. The next check of that position:
//! - with a kept listing, goes on with it
//!   ([`TurnEnumerator::resume_while`]): the listing keeps its memo of
//!   finished mid-turn states and of the turns given, enters again the
//!   states on its path when it stopped, and gives the rest of the turns
//!   in the order an uninterrupted listing gives them; the turn that ran
//!   out is tested first;
//! - without one, lists again from the start and skips the decided turns
//!   without testing them. Listing them again costs time (in the biggest
//!   positions tens of thousands of turns before the first new one), which
//!   is why the recent listings are kept.
//!
//! The checker keeps two lists of points, one for B's turns and one for
//! A's replies to one of them, so a check that ran out in the middle of a
//! proof resumes the proof too. Either way each turn is decided once, in
//! the same order, with the same answer as an uninterrupted check: checks
//! that run out add up to the exact answer (the tests check this against
//! work budgets and against deadlines).
//!
//! The in-search checks come back to the tree's best turn or two, and the
//! defence search to its current candidate, so a few points suffice; a big
//! listing's memo takes megabytes, so only [`KEPT_LISTINGS`] of the
//! [`RESUME_POINTS`] keep theirs, and a member of the defence search's
//! crew, which works on one candidate at a time, keeps one.

use std::time::Instant;

use super::budget::OutOfBudget;
use crate::rules::{Action, Outcome, Position, Rules, TurnEnumerator};

/// How many stopped checks a [`ThreatChecker`] remembers of each kind, to
/// resume them.
///
/// [`ThreatChecker`]: super::ThreatChecker
const RESUME_POINTS: usize = 16;

/// How many of the most recent stopped checks keep their listing, to go on
/// with it instead of listing the decided turns again: the in-search checks
/// come back to the tree's best turn or two, the defence search to its
/// current candidate.
pub(super) const KEPT_LISTINGS: usize = 4;

/// The first turn `enumerator` lists in `position` that `test` (given the
/// turn's result and outcome) accepts. The listing stops at that turn: the
/// rest, often thousands, change nothing. When the test runs out of budget
/// or the listing reaches `deadline`, `stops` records how many listed turns
/// were rejected, and the listing itself (the most recent `kept`), and the
/// next search of the same position in `stops` goes on with that listing,
/// or lists again and skips the rejected turns without testing them again.
pub(super) fn first_listed(
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

/// Where a check that ran out of budget stopped ([`ThreatChecker`]'s
/// `resume_turns` and `resume_replies`).
///
/// [`ThreatChecker`]: super::ThreatChecker
pub(super) struct ResumePoint {
    /// The position whose turns were being listed.
    pub(super) position: Position,
    /// The rules they were listed under: other rules list other turns.
    rules: Rules,
    /// How many of the first listed turns were decided.
    decided: usize,
    /// The stopped listing, to go on with (kept for the most recent few
    /// points only: a big listing's memo takes megabytes).
    pub(super) listing: Option<Box<StoppedListing>>,
}

/// A listing that stopped, with the turn it stopped at when that turn's test
/// ran out of budget (listed, so the listing will not give it again, but not
/// decided).
pub(super) struct StoppedListing {
    /// The listing, with its memo and the path it stopped on.
    enumerator: TurnEnumerator,
    /// The turn whose test ran out, with its result and outcome, to test
    /// first when the listing goes on.
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
