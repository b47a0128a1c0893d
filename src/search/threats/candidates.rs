//! The side to move's turns as candidate defences, and their order.
//!
//! A defence is found by deciding the mover's turns one after another
//! until one is proven safe, so the order is what decides how soon: the
//! turns are keyed by the static evaluation of their results (for the
//! opponent, who moves there: lowest first). The key includes the
//! evaluation's solver calls, which sort last the turns that let the
//! opponent win at once; keyed by the value alone, the first defence comes
//! thousands of turns later in the big positions.
//!
//! A root can have 60,000 turns and more, and keying them can take longer
//! than the checks have, so the order is built to survive being cut short:
//! - the turns without a sacrifice are keyed first: they are tens where
//!   the others can be tens of thousands, and the defence is often one of
//!   them (a capture, a build at home). The defence search keys the others
//!   only when its first pass reaches them ([`CandidateList::order_rest`]);
//! - keys cut short by the deadline leave the rest of the list unkeyed
//!   ([`UNKEYED`]), after the keyed turns, in listing order: a list ordered
//!   in part still holds the defences, where giving up the whole list
//!   would leave none to try;
//! - the keys can be computed on a pool of threads ([`keys_on_pool`]), each
//!   with a solver of its own.
//!
//! The list itself ([`CandidateList`]) keeps every turn's actions in one
//! buffer and its result in another, in listing order, and sorts only a
//! vector of indices: building, moving and freeing 60,000 small vectors of
//! actions and 128-byte positions takes over 10 ms, which at 100 ms a turn
//! runs past the checks' deadline.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use rayon::prelude::*;
use rayon::ThreadPool;

use super::budget::ThreatBudget;
use super::checker::ThreatChecker;
use crate::rules::{Action, Outcome, Position, Rules, TurnOrder, TurnState};
use crate::search::solver::Solver;
use crate::search::tunables::Tunables;

/// Candidate defences with their results, kept in the order they were
/// listed and tried in an order of their own (a rank is a place in that
/// order). Not one vector of turns sorted: the actions share one buffer and
/// only the order is sorted (see the module docs).
#[derive(Default)]
pub(super) struct CandidateList {
    /// Every turn's actions, one after another.
    actions: Vec<Action>,
    /// Per listed turn, the end of its actions in `actions`.
    ends: Vec<u32>,
    /// Per listed turn, its result.
    results: Vec<Position>,
    /// The listed turns' indices, in the order to try them.
    pub(super) order: Vec<u32>,
    /// Per listed turn, its key ([`UNKEYED`] until keyed).
    keys: Vec<f32>,
    /// How many of `order` are ordered by key: those after are listed but
    /// not keyed yet ([`CandidateList::order_rest`]), in listing order.
    keyed: usize,
}

impl CandidateList {
    /// Adds a turn after the others, last in the order too.
    pub(super) fn push(&mut self, actions: &[Action], result: &Position) {
        self.order.push(self.results.len() as u32);
        self.actions.extend_from_slice(actions);
        self.ends.push(self.actions.len() as u32);
        self.results.push(*result);
        self.keys.push(UNKEYED);
    }

    /// How many turns, from the first in the order, are ordered by key.
    pub(super) fn keyed(&self) -> usize {
        self.keyed
    }

    /// The key of the turn at `rank` ([`UNKEYED`] if it has none).
    pub(super) fn key(&self, rank: usize) -> f32 {
        self.keys[self.order[rank] as usize]
    }

    /// How many turns the list holds.
    pub(super) fn len(&self) -> usize {
        self.order.len()
    }

    /// Whether the list holds no turn (in check, a classification cut
    /// short leaves none to resume).
    pub(super) fn is_empty(&self) -> bool {
        self.order.is_empty()
    }

    /// The actions of the turn of listing index `index`.
    fn listed_actions(&self, index: usize) -> &[Action] {
        let start = index.checked_sub(1).map_or(0, |before| self.ends[before]);
        &self.actions[start as usize..self.ends[index] as usize]
    }

    /// The actions of the turn at `rank` in the order.
    pub(super) fn actions(&self, rank: usize) -> &[Action] {
        self.listed_actions(self.order[rank] as usize)
    }

    /// The result of the turn at `rank` in the order.
    pub(super) fn result(&self, rank: usize) -> &Position {
        &self.results[self.order[rank] as usize]
    }

    /// The turns from `rank` on, in the order.
    pub(super) fn iter_from(&self, rank: usize) -> impl Iterator<Item = (&[Action], &Position)> {
        self.order[rank.min(self.len())..].iter().map(|&index| {
            let index = index as usize;
            (self.listed_actions(index), &self.results[index])
        })
    }

    /// Every turn, in the order.
    pub(super) fn iter(&self) -> impl Iterator<Item = (&[Action], &Position)> {
        self.iter_from(0)
    }

    /// Orders the turns by `keyed` (a key and a listing index each, one per
    /// turn): lowest key first, ties in listing order.
    pub(super) fn order_by(&mut self, keyed: Vec<(f32, u32)>) {
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
    pub(super) fn order_rest(&mut self, keys: impl FnOnce(&[&Position]) -> Vec<f32>) {
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
pub(super) struct Candidates {
    /// Turns that win at once: defences without a check.
    pub(super) found: Vec<Vec<Action>>,
    /// Turns after which the game goes on, best first, with their results.
    pub(super) turns: CandidateList,
}

impl ThreatChecker {
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
    pub(super) fn candidates(
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
}

/// The keys of `results` by `order`, one after another on this thread;
/// from `deadline` on (ordering can cost a solver call and an evaluation a
/// turn, over tens of thousands), the rest get [`UNKEYED`].
pub(super) fn keys_in_turn(
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
/// one, in the listing's order. The list is kept, not given up: in a
/// position of 60,000 turns the keys take longer than the checks' share,
/// and a list ordered in part still holds the defences.
pub(super) const UNKEYED: f32 = f32::INFINITY;

/// The keys of `results` by the static evaluation (for the side to move in
/// each, the opponent of the turn's mover), spread over `pool`'s threads,
/// each with a solver of its own; from `deadline` on, [`UNKEYED`].
pub(super) fn keys_on_pool(
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
                crate::search::static_evaluation_using(result, rules, tunables, solver)
            })
            .collect()
    })
}

/// The keys of `results` by the static evaluation, on `pool`'s threads if
/// given, else on this one; from `deadline` on, [`UNKEYED`].
pub(super) fn evaluation_keys(
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
                crate::search::static_evaluation_using(result, rules, tunables, &mut solver)
            })
        }
    }
}
