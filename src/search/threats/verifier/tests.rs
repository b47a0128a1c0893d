//! Tests of the root verifier, on readings of a tree made by hand: the
//! defence search's order, passes and slices, on one thread and on a
//! pool, and what the final choice plays under a threat.

use std::time::{Duration, Instant};

use super::defence_search::Progress;
use super::RootVerifier;
use crate::notation::hwpn;
use crate::rules::{Action, Outcome, Position, Rules, TurnEnumerator};
use crate::search::extract::TreeTurn;
use crate::search::info::TreeReading;
use crate::search::options::SearchLimits;
use crate::search::players::Choice;
use crate::search::report::Decision;
use crate::search::solver::Solver;
use crate::search::threats::budget::ThreatBudget;
use crate::search::threats::candidates::UNKEYED;
use crate::search::threats::checker::ThreatChecker;
use crate::search::threats::result_of;
use crate::search::threats::tests::{first_turn, threatened_and_lost, THREATENED};
use crate::search::tree::UNPROVEN;
use crate::search::tunables::Tunables;

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

    let mut verifier = RootVerifier::new(&SearchLimits::nodes(1_000), None, Instant::now(), 0.25);
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
    let mut verifier = RootVerifier::new(&SearchLimits::nodes(1_000), None, Instant::now(), 0.25);
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
fn the_defence_search_keys_the_turns_with_a_sacrifice_when_it_reaches_them() {
    let rules = Rules::STANDARD;
    let tunables = Tunables::default();
    let (position, _) = threatened_and_lost(&rules);
    let sacrifices = |actions: &[Action]| {
        actions
            .iter()
            .any(|action| matches!(action, Action::Sacrifice { .. }))
    };
    let mut verifier = RootVerifier::new(&SearchLimits::nodes(1_000), None, Instant::now(), 0.125);
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
        .map(|(_, result)| crate::search::static_evaluation_with(result, &rules, &tunables))
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
    let mut verifier = RootVerifier::new(&SearchLimits::nodes(1_000), None, Instant::now(), 0.125);
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
