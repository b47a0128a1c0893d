//! Tests of the tree-free checker: that checks cut short by work or by a
//! deadline add up to the exact answer, what it remembers and keeps, and
//! the candidate list's order. The threatened position and the helpers
//! here serve the verifier's tests too.

use std::time::{Duration, Instant};

use super::budget::ThreatBudget;
use super::candidates::{keys_in_turn, keys_on_pool, CandidateList, UNKEYED};
use super::checker::ThreatChecker;
use super::crew::{decide, Verdict};
use super::result_of;
use super::resume::KEPT_LISTINGS;
use crate::notation::hwpn;
use crate::rules::{Action, Outcome, Position, Rules, TurnEnumerator};
use crate::search::solver::Solver;
use crate::search::tunables::Tunables;

/// SDG game 13748 before turn 57 (suite position 12): the opponent
/// threatens a two-turn plan.
pub(super) const THREATENED: &str =
    "Joe=y1:r3:/ZackStack=r2b3::y2y3g1g3/Belle=b1:r1r3y1:/Ann=b3:r2y1y2g2:\
                          /Gwen=r3::y3g1/Mae=y2::g2/Gina=y3:r2g1g2b2: 0";

/// [`THREATENED`] and a turn there that loses to the opponent's plan.
pub(super) fn threatened_and_lost(rules: &Rules) -> (Position, Vec<Action>) {
    let board = hwpn::parse(THREATENED).unwrap();
    let lost = board
        .clone()
        .play_turn_text(rules, "build.g3.Ann")
        .unwrap()
        .actions;
    (board.position, lost)
}

/// The first turn in `position`'s listing after which the game goes on
/// and that `wanted` accepts, with its result.
pub(super) fn first_turn(
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
    // The same plans, without the refuting replies.
    let mut forgetful = ThreatChecker::default();
    forgetful.threats = checker.threats.clone();
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
    let exact =
        ThreatChecker::default().forced_win_in_two(&after, &rules, ThreatBudget::work(u64::MAX));
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
